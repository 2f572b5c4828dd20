// The linter: typescript-eslint's recommended type-checked rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Generated code is checked by its own tests (and regenerated, not edited); JavaScript files are
  // the CLI's thin launchers and build scripts. fixtures/ stays linted: its schemas (fixtures/errors/
  // included) are valid TypeScript whose mistakes are the DSL's, which the generator must report.
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'generator/templates/**',
      'templates/**',
      '**/generated/**',
      '**/.tmp/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Data layers and callbacks answer a value or a promise of it (`MaybePromise`), and the
      // runtime awaits a list of such answers at once: a mixed list is the design, not a slip.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // The code base marks a binding it must name but does not use with a leading `_`
      // (`for (const _ of value)`, a callback's unused `_context` parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Tests read JSON:API response bodies (`await response.json()`) as `any` and walk them
    // freely; typing each body would restate the document in every test without catching more
    // than the assertions do. So the `any` family is off in tests only; the rest (floating and
    // misused promises, unused variables, needless assertions...) still applies.
    // The same holds for the benchmark's hand-written baseline servers (bench/baseline/), which
    // read the drivers' rows and the request document as loose records (`Row`), as such a
    // hand-written server does; typing them would make them something else than a baseline.
    files: ['test/**', '**/*.test.ts', 'bench/baseline/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Tests' fake data layers and handlers implement async interfaces with `async` functions
    // that need no `await`, as hosts write them; whether such a fake throws or rejects is part of
    // what several tests exercise, so they stay `async`.
    files: ['test/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
);
