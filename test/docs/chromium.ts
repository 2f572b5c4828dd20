/**
 * Debian's Chromium for the browser tests: installed with apt-get when missing (as root, on a
 * fresh Debian machine), never silently skipped. Launched by playwright-core with the machine's
 * flags and a new, empty user-data-dir.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Installs Debian's chromium when /usr/bin/chromium is missing; throws saying why it cannot. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `${CHROMIUM} is missing and this test cannot install it (${root ? 'no apt-get' : 'not root'}). ` +
        "Install Debian's chromium: apt-get update && apt-get install -y chromium",
    );
  }
  const install = spawnSync('sh', ['-c', 'apt-get update && apt-get install -y chromium'], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 900_000,
  });
  if (install.status !== 0 || !existsSync(CHROMIUM)) {
    const tail = `${install.stdout ?? ''}${install.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(
      `apt-get install -y chromium failed (exit ${install.status ?? install.signal}); ${CHROMIUM} is still missing:\n${tail}`,
    );
  }
}

/** The flags from the machine notes: no sandbox (root), no GPU, and no background network traffic. */
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium on a fresh profile directory, removed on close. */
export async function launch(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'jsonapi-gen-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport,
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
