import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '**/dist/',
      'docs/',
      'test-output/',
      '.bench-build/',
      '.bench-test-build/',
      'test/support/*.cjs',
      '.mocharc.cjs',
      '**/.angular/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      // `import { type A }` compiles to `import {} from '...'` under verbatimModuleSyntax: an import
      // for side effects, which a bundler warns about for a file package.json's `sideEffects`
      // says has none. `import type { A }` leaves nothing.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
);
