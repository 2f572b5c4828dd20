/**
 * Summarizes a `node --cpu-prof` profile: the functions with the most self time, and with the
 * most total (inclusive) time. `node --import tsx bench/profile-summary.ts FILE.cpuprofile [N]`.
 * `selfByPlace` is the same self time by where the code lives, for a results section.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

/** A parsed `.cpuprofile`. */
export interface CpuProfile {
  nodes: ProfileNode[];
}

export const readProfile = (file: string): CpuProfile => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

/**
 * Self-time samples by the place `place` names for each frame (its function name and url),
 * largest first, with the total of the samples counted. Frames `place` gives undefined (idle
 * time, say) are left out of both.
 *
 * @example
 * const { total, places } = selfByPlace(readProfile('CPU.cpuprofile'), (_, url) => url.includes('node_modules') ? 'packages' : 'ours');
 */
export function selfByPlace(
  profile: CpuProfile,
  place: (functionName: string, url: string) => string | undefined,
): { total: number; places: Array<[string, number]> } {
  const places = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const where = place(node.callFrame.functionName, node.callFrame.url);
    if (where === undefined || node.hitCount === 0) continue;
    places.set(where, (places.get(where) ?? 0) + node.hitCount);
    total += node.hitCount;
  }
  return { total, places: [...places].sort((a, b) => b[1] - a[1]) };
}

function main(file: string | undefined, count = '25'): void {
  if (!file) throw new Error('usage: bench/profile-summary.ts FILE.cpuprofile [N]');
  const profile = readProfile(file);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const total = profile.nodes.reduce((n, node) => n + node.hitCount, 0);
  const label = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    const where = url
      ? `${url.replace(/^.*\/(node_modules\/)?/, (m) => (m.includes('node_modules') ? 'nm/' : ''))}:${lineNumber + 1}`
      : '';
    return `${functionName || '(anonymous)'} ${where}`;
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const walk = (id: number, stack: Set<string>): number => {
    const node = byId.get(id)!;
    let sum = node.hitCount;
    const name = label(node);
    self.set(name, (self.get(name) ?? 0) + node.hitCount);
    const seen = stack.has(name);
    stack.add(name);
    for (const child of node.children ?? []) sum += walk(child, stack);
    if (!seen) {
      stack.delete(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
    }
    return sum;
  };
  walk(profile.nodes[0]!.id, new Set());
  const top = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(count))
      .map(([name, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
  // Self time by where the code lives: a package under node_modules, a file of ours, or Node's internals.
  const files = new Map(
    selfByPlace(profile, (functionName, url) =>
      url.includes('node_modules/')
        ? `pkg ${url.split('node_modules/').pop()!.split('/')[0]}`
        : url.startsWith('node:') || !url.includes('/')
          ? url
            ? `node ${url.replace(/^node:/, '').split(':')[0]}`
            : `(${functionName || 'native'})`
          : url.split('/').slice(-2).join('/'),
    ).places,
  );
  console.log(`by place\n${top(files).join('\n')}\n`);
  console.log(`self (of ${total} samples)\n${top(self).join('\n')}\n\ntotal\n${top(inclusive).join('\n')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv[2], process.argv[3]);
