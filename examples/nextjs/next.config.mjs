import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  // This example imports ../shared and the package's TypeScript sources from the repository;
  // in your app, `jsonapi-gen` comes from node_modules and this config can stay empty.
  outputFileTracingRoot: root,
  turbopack: { root },
  // The sources import './x.js' for './x.ts' (NodeNext style); Turbopack cannot map that yet
  // (vercel/next.js#82945), so this example runs on webpack: `next dev --webpack`.
  experimental: { extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
};
