// Lint rules: typescript-eslint's recommended set over src, scripts and test, and the
// borders between the layers of src/ (test/layout/boundaries.test.ts shows each one firing).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * A relative import reaching a top folder of src/ (or scripts/): `../x/…`, `../../x/…`. The
 * patterns read the specifier as written; imports in src/ are relative, so a layer is named
 * by the folder the path climbs into. `names` are folder names, or file names without `.js`.
 */
const into = (names, message) => ({ regex: `^(\\.\\./)+(${names.join('|')})(/|\\.js$)`, message });

const TRANSPORTS = ['rest', 'mcp', 'http'];

/** Each layer with what it must not import; one `no-restricted-imports` per files glob (ESLint keeps the last). */
export const BOUNDARIES = [
  {
    files: ['src/platform/**/*.ts'],
    patterns: [
      into(['domains', 'auth', 'access', 'import', 'migrations', ...TRANSPORTS], 'platform/ ne connaît ni domaine, ni identité, ni accès, ni transport : déplacer ce code, ou passer ce dont il a besoin en paramètre.'),
      into(['call-path', 'app', 'server', 'main'], 'platform/ ne dépend pas de l’assemblage du service.'),
    ],
  },
  {
    files: ['src/domains/**/*.ts'],
    patterns: [into(TRANSPORTS, 'domains/ ne connaît aucun transport (rest/, mcp/, http/) : une action reçoit ses arguments et l’appelant, et rend un résultat.')],
  },
  {
    files: ['src/import/**/*.ts'],
    patterns: [into(['domains'], 'import/ ne connaît les importateurs que par leur interface (import/importer.ts) ; leur liste est dans domains/importers.ts.')],
  },
  {
    files: ['src/sync/**/*.ts'],
    patterns: [into(['domains', 'auth', 'access', ...TRANSPORTS], 'sync/ ne connaît les connecteurs que par leur interface (sync/connector.ts) ; leur liste est dans domains/connectors.ts.')],
  },
  {
    files: TRANSPORTS.map((t) => `src/${t}/**/*.ts`),
    patterns: [into(['domains'], 'Un transport ne décide rien : il passe par le chemin d’appel (call-path.ts), jamais directement par un domaine.')],
  },
];

const SCRIPTS = into(['scripts'], 'src/ n’importe rien de scripts/ : le service ne dépend pas des outils de développement.');

export default tseslint.config(
  { ignores: ['node_modules/**', 'generated/**', 'data/**', 'build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [SCRIPTS] }] } },
  ...BOUNDARIES.map(({ files, patterns }) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns: [SCRIPTS, ...patterns] }] } })),
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
