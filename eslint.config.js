// Lint: the one-way layering of docs/CONVENTIONS.md, plus typescript-eslint's recommended checks.
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

const layer = (type) => ({ type, pattern: `${type}/**`, partialMatch: false });
const may = (from, ...to) => ({ from: { element: { type: from } }, allow: { to: { element: { types: { anyOf: [from, ...to] } } } } });

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ['config', 'domain', 'platform', 'projections', 'application', 'http', 'service', 'scripts', 'test'].map(layer),
      'import/resolver': { node: { extensions: ['.ts'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            { allow: { to: { module: { origin: 'external' } } } },
            { allow: { to: { module: { origin: 'core' } } } },
            may('config'),
            may('domain'),
            may('platform', 'config'),
            may('projections', 'domain', 'platform', 'config'),
            may('application', 'projections', 'domain', 'platform', 'config'),
            may('http', 'application', 'projections', 'domain', 'platform', 'config'),
            may('service', 'http', 'application', 'projections', 'domain', 'platform', 'config'),
            may('scripts', 'service', 'http', 'application', 'projections', 'domain', 'platform', 'config', 'test'),
            may('test', 'scripts', 'service', 'http', 'application', 'projections', 'domain', 'platform', 'config'),
          ],
        },
      ],
      // A closure may read a variable before its one later assignment (a child process, say).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Replies and fixtures in tests and benchmarks are untyped JSON by nature.
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
