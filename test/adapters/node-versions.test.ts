/**
 * The Node adapter works unchanged on Node 20, 22 and 24 (issue 22). The runtime is built
 * once (tsc into a temp folder, as its own build does), and ./node-versions/scenario.mjs runs
 * on each version: it serves one in-memory resource on 127.0.0.1 through `toNodeHandler(api)`
 * and through `toNodeHandler((request) => api.fetch(request))`, and reports GET, POST, HEAD,
 * 404 and 413 (by Content-Length and streamed) as one JSON line, asserted here per version.
 *
 * The current Node (`process.execPath`, 20 on the CI machine) runs it as is. Node 22 and 24
 * come from the npm registry, as the `node-<platform>-<arch>` packages that the `node`
 * package itself installs: `npm install --no-save --prefix node_modules/.cache/node-versions/<major>`
 * (node_modules/ is gitignored), once: a later run reuses the binary without asking the
 * registry (delete that folder to pick up a newer release of the major). When the registry
 * cannot be reached the test fails saying so; it never skips.
 */
import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { JSON_API, ROOT } from './support.js';

/** The majors fetched from the registry (the current Node runs too). */
const MAJORS = [22, 24] as const;
const CACHE = join(ROOT, 'node_modules', '.cache', 'node-versions');
const SCENARIO = join(ROOT, 'test', 'adapters', 'node-versions', 'scenario.mjs');
/** Downloads are about 30 MB each. */
const INSTALL_TIMEOUT = 600_000;

/** The registry package holding this machine's Node binary, as the `node` package names it. */
function binaryPackage(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

/** Runs a command; on failure, an error with its stdout too (the message has the command and its stderr). */
function run(file: string, args: readonly string[], options: ExecFileSyncOptions = {}): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options }) as string;
  } catch (error) {
    const failure = error as Error & { stdout?: string | Buffer };
    throw new Error(`${failure.message}${failure.stdout ? `\n${String(failure.stdout)}` : ''}`, { cause: error });
  }
}

/** The `node` executable of an installed package folder, from its package.json `bin`. */
function executableIn(packageDir: string): string {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.node;
  if (!bin) throw new Error(`${packageDir}/package.json names no node binary`);
  return join(packageDir, bin);
}

/**
 * The Node binary of `major`: from the cache folder, or installed there from the registry
 * first (into a private folder renamed into place, so two runs at once do not share a half
 * install).
 */
function nodeBinary(major: number): string {
  const name = binaryPackage();
  const prefix = join(CACHE, String(major));
  const packageDir = (root: string) => join(root, 'node_modules', name);
  if (!existsSync(join(packageDir(prefix), 'package.json'))) {
    const staging = `${prefix}.${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    // Its own package.json, so npm does not take the workspace above for the project.
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: `node-${major}`, private: true }));
    try {
      run(
        'npm',
        [
          'install',
          '--no-save',
          '--prefix',
          staging,
          `${name}@${major}`,
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
        ],
        {
          cwd: staging,
          timeout: INSTALL_TIMEOUT,
        },
      );
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(
        `Could not install Node ${major} from the npm registry (${name}@${major}); this test needs the registry once per major, then reuses ${prefix}.\n${(error as Error).message}`,
        { cause: error },
      );
    }
    try {
      renameSync(staging, prefix);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another run put it there first
    }
  }
  return executableIn(packageDir(prefix));
}

interface Summary {
  node: string;
  results: Record<'server' | 'fetch', Record<string, unknown>>;
  errors: string[];
}

/** Runs the scenario with `node` against the built runtime. */
function scenario(node: string): Summary {
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // vitest's or the caller's flags are not for another version
  const out = run(node, [SCENARIO, dist], { cwd: ROOT, env, timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Summary;
}

/** What each handler answers, on every version. */
const EXPECTED = {
  get: {
    status: 200,
    type: JSON_API,
    length: expect.stringMatching(/^\d+$/),
    data: { type: 'tags', id: '2', attributes: { name: 'tech' }, links: { self: 'ORIGIN/tags/2' } },
    self: 'ORIGIN/tags/2',
  },
  post: {
    status: 201,
    type: JSON_API,
    location: 'ORIGIN/tags/3',
    data: { type: 'tags', id: '3', attributes: { name: 'node' }, links: { self: 'ORIGIN/tags/3' } },
  },
  // HEAD: the GET's status and headers, no body bytes on the wire.
  head: { statusLine: 'HTTP/1.1 200 OK', type: JSON_API, etagAsGet: true, bodyBytes: 0 },
  notFound: { status: 404, type: JSON_API, errors: ['404'] },
  tooLarge: { status: 413, type: JSON_API, errors: [['413', 'limit_exceeded', 1024]] },
  tooLargeStreamed: { status: 413, type: JSON_API, errors: [['413', 'limit_exceeded', 1024]] },
};

let buildDir: string;
let dist: string;
const summaries = new Map<string, Summary>();

beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-node-versions-'));
  dist = join(buildDir, 'dist');
  // The runtime's own build (runtime/tsconfig.build.json), into a folder of this run only:
  // runtime/dist is left to the package tests, which remove and rebuild it.
  run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(ROOT, 'runtime', 'tsconfig.build.json'),
      '--outDir',
      dist,
    ],
    { cwd: ROOT },
  );
}, 120_000);

afterAll(() => {
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

function check(label: string, summary: Summary): void {
  summaries.set(label, summary);
  expect(summary.errors).toEqual([]);
  for (const handler of ['server', 'fetch'] as const) {
    const result = summary.results[handler] as typeof EXPECTED & {
      get: { length: string };
      head: { length: string | null };
    };
    // A HEAD may leave Content-Length out; when it sends one, it is the GET's.
    expect([null, result.get.length], handler).toContain(result.head.length);
    expect(result, handler).toEqual({ ...EXPECTED, head: { ...EXPECTED.head, length: result.head.length } });
  }
}

describe('the Node adapter on each Node version', () => {
  test(`the current Node (${process.version})`, () => {
    const summary = scenario(process.execPath);
    expect(summary.node).toBe(process.version);
    check('current', summary);
  }, 60_000);

  for (const major of MAJORS) {
    test(
      `Node ${major} from the npm registry (${binaryPackage()}@${major})`,
      () => {
        const node = nodeBinary(major);
        const version = run(node, ['--version']).trim();
        expect(version).toMatch(new RegExp(`^v${major}\\.`));
        const summary = scenario(node);
        expect(summary.node).toBe(version);
        console.log(`node-versions: ${version} at ${node}`);
        check(`Node ${major}`, summary);
      },
      INSTALL_TIMEOUT + 60_000,
    );
  }

  test('every version answered the same', () => {
    expect([...summaries.keys()]).toEqual(['current', ...MAJORS.map((major) => `Node ${major}`)]);
    const [first, ...rest] = [...summaries.values()];
    for (const summary of rest) expect(summary.results).toEqual(first!.results);
  });
});
