/**
 * Summarizes a `node --cpu-prof` profile: the functions with the most self time, and with the
 * most total (inclusive) time. `node --import tsx bench/profile-summary.ts FILE.cpuprofile [N]`
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const [file, count = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-summary.ts FILE.cpuprofile [N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[] };
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
const files = new Map<string, number>();
for (const node of profile.nodes) {
  const { url, functionName } = node.callFrame;
  const where = url.includes('node_modules/')
    ? `pkg ${url.split('node_modules/').pop()!.split('/')[0]}`
    : url.startsWith('node:') || !url.includes('/')
      ? url
        ? `node ${url.replace(/^node:/, '').split(':')[0]}`
        : `(${functionName || 'native'})`
      : url.split('/').slice(-2).join('/');
  files.set(where, (files.get(where) ?? 0) + node.hitCount);
}
console.log(`by place\n${top(files).join('\n')}\n`);
console.log(`self (of ${total} samples)\n${top(self).join('\n')}\n\ntotal\n${top(inclusive).join('\n')}`);
