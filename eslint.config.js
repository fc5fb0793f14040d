// Lint: the one-way layering of docs/CONVENTIONS.md, plus typescript-eslint's recommended checks,
// plus eslint-plugin-regexp on every regular expression literal.
import boundaries from 'eslint-plugin-boundaries';
import regexp from 'eslint-plugin-regexp';
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
  regexp.configs['flat/recommended'],
  {
    rules: {
      // No pattern may take more than linear time on what a caller sends (issue 33: one e-mail
      // field held the event loop for seconds). Errors, not the recommended set's warnings. A
      // trailing run is stripped with (?<!x)x+$: starting only where the run starts, it is linear.
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      // Style only, and every branch edits regular expressions: \w for [A-Za-z0-9_], the i flag
      // for [Aa], (?:) for an unread group change no match.
      'regexp/prefer-w': 'off',
      'regexp/use-ignore-case': 'off',
      'regexp/no-unused-capturing-group': 'off',
      // The patterns that name control characters strip or refuse them on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Replies and fixtures in tests and benchmarks are untyped JSON by nature.
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
