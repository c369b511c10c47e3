import { tempTree } from './helpers';

/**
 * A small JavaScript repository as users have them (issue 15): dependencies in `node_modules` (nested
 * too), build output in `dist`, nested `.gitignore` files with negations, and `.git/info/exclude`.
 * Every file holds "needle"; the ones git would track are listed in {@link TRACKED}.
 */
export async function fixtureRepository(): Promise<{ base: string; root: string; outside: string }> {
  return tempTree({
    '.gitignore': '# build output\ndist/\n*.log\n!keep.log\ncoverage\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/info/exclude': 'secret-notes.md\n',
    'package.json': '{ "name": "needle" }\n',
    'node_modules/lib/index.js': 'export const needle = 1;\n',
    'node_modules/lib/package.json': '{ "name": "lib", "description": "needle" }\n',
    'dist/bundle.js': 'const needle = 1;\n',
    'coverage/lcov.js': 'needle\n',
    'debug.log': 'needle in a log\n',
    'keep.log': 'needle kept by a negation\n',
    'secret-notes.md': 'needle excluded by .git/info/exclude\n',
    'src/index.ts': 'export const needle = 1;\n',
    'src/generated/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
    'src/generated/a.gen.ts': 'needle\n',
    'src/generated/keep.gen.ts': 'needle\n',
    'packages/app/.gitignore': 'build/\n',
    'packages/app/build/out.js': 'needle\n',
    'packages/app/src/main.ts': 'const needle = 2;\n',
    'packages/app/node_modules/dep/index.js': 'needle\n',
  });
}

/** The files git would track in {@link fixtureRepository}, sorted. */
export const TRACKED = [
  '.gitignore',
  'keep.log',
  'package.json',
  'packages/app/.gitignore',
  'packages/app/src/main.ts',
  'src/generated/.gitignore',
  'src/generated/keep.gen.ts',
  'src/index.ts',
];
