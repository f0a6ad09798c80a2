// ESLint (flat config): only the rules the project relies on; type checking is `pnpm typecheck`.
// Packages use the public entries of @chunkform/core (`@chunkform/core`, `@chunkform/core/node`,
// `@chunkform/core/plugin`), never its unpublished sources.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'docs/api/**', 'examples/viewer/dist/**', 'packages/bitshuffle-wasm/wasm/**', 'packages/bitshuffle-wasm/assembly/**'] },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
    // Registered so that `eslint-disable` comments naming its rules resolve.
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@chunkform/core/internal', '@chunkform/core/internal/*', '@chunkform/core/src/*'],
              message: 'import from @chunkform/core or @chunkform/core/plugin (the curated plug-in API) instead',
            },
          ],
        },
      ],
    },
  },
  // Core itself uses relative imports; its tests may too.
  { files: ['packages/core/**'], rules: { 'no-restricted-imports': 'off' } },
);
