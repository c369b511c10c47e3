/**
 * Cost of the workspace tools per call (the path jail's lstat walk + descriptor walk + identity checks).
 * Run: npx tsx bench/workspace-tools/workspace-tools.ts   (from /work/main)
 *
 * Reports the median time per call (µs) for read_file at depth 1 and 6, write_file (atomic, with
 * fdatasync), edit_file, list_directory of 100 entries, find_files over 1,000 files, search_text over
 * 1,000 small files (includes starting the regex worker thread), and a trivial command preset.
 *
 * Then a real-repository shape (issue 15): 100,000 ignored files (node_modules, dist, coverage, a nested
 * .gitignore'd build folder) beside 2,000 source files; find_files and search_text must answer in < 2 s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandTool, Workspace, workspaceTools } from '../../packages/workspace-tools/src/index';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(label: string, runs: number, fn: (run: number) => Promise<unknown>): Promise<void> {
  for (let warm = 0; warm < Math.min(runs, 20); warm++) await fn(warm);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    await fn(run);
    times.push((performance.now() - start) * 1000);
  }
  console.log(`${label.padEnd(48)} median ${median(times).toFixed(1).padStart(10)} µs`);
}

const root = await mkdtemp(join(tmpdir(), 'bench-ws-'));
try {
  await writeFile(join(root, 'small.txt'), 'hello\n'.repeat(50));
  await mkdir(join(root, 'a/b/c/d/e'), { recursive: true });
  await writeFile(join(root, 'a/b/c/d/e/deep.txt'), 'deep\n');
  await mkdir(join(root, 'many'));
  for (let index = 0; index < 1000; index++) {
    await writeFile(
      join(root, 'many', `f${String(index).padStart(4, '0')}.ts`),
      `export const value${index} = ${index};\n`,
    );
  }
  const workspace = await Workspace.open(root);
  const tools = Object.fromEntries(workspaceTools(workspace).map((tool) => [tool.name, tool]));
  const command = commandTool(workspace, { noop: { executable: 'true' } });
  const context = { signal: new AbortController().signal, callId: 'c', runId: 'r' };

  await measure('read_file small.txt (depth 1)', 2000, () => tools.read_file!.execute({ path: 'small.txt' }, context));
  await measure('read_file a/b/c/d/e/deep.txt (depth 6)', 2000, () =>
    tools.read_file!.execute({ path: 'a/b/c/d/e/deep.txt' }, context),
  );
  await measure('write_file (temp + fdatasync + rename)', 300, (run) =>
    tools.write_file!.execute({ path: 'out.txt', content: `run ${run}\n` }, context),
  );
  await writeFile(join(root, 'edit.txt'), 'value A\n');
  await measure('edit_file (read + replace + atomic write)', 300, (run) =>
    tools.edit_file!.execute({ path: 'edit.txt', oldText: run % 2 ? 'B' : 'A', newText: run % 2 ? 'A' : 'B' }, context),
  );
  await measure('list_directory many/ (1,000 entries)', 50, () =>
    tools.list_directory!.execute({ path: 'many' }, context),
  );
  await measure('find_files many/*.ts (1,000 files)', 50, () =>
    tools.find_files!.execute({ pattern: 'many/*.ts' }, context),
  );
  await measure('search_text over 1,000 files (+ worker start)', 30, () =>
    tools.search_text!.execute({ pattern: 'value99\\b' }, context),
  );
  await measure('run_command noop (spawn + group wait)', 50, () => command.execute({ command: 'noop' }, context));
} finally {
  await rm(root, { recursive: true, force: true });
}

const repository = await mkdtemp(join(tmpdir(), 'bench-repo-'));
try {
  const files = (directory: string, count: number, content: (index: number) => string) => {
    mkdirSync(join(repository, directory), { recursive: true });
    for (let index = 0; index < count; index++)
      writeFileSync(join(repository, directory, `f${index}.js`), content(index));
  };
  writeFileSync(join(repository, '.gitignore'), 'dist/\ncoverage/\n*.log\n');
  for (let pkg = 0; pkg < 600; pkg++) files(`node_modules/pkg${pkg}/lib`, 100, () => 'export const needle = 0;\n');
  for (let part = 0; part < 200; part++) files(`dist/chunk${part}`, 100, () => 'needle();\n');
  for (let part = 0; part < 100; part++) files(`coverage/c${part}`, 100, () => 'needle\n');
  mkdirSync(join(repository, 'packages/app'), { recursive: true });
  writeFileSync(join(repository, 'packages/app/.gitignore'), 'build/\n');
  for (let part = 0; part < 100; part++) files(`packages/app/build/b${part}`, 100, () => 'needle\n');
  for (let part = 0; part < 40; part++) {
    mkdirSync(join(repository, `src/module${part}`), { recursive: true });
    for (let index = 0; index < 50; index++) {
      const id = part * 50 + index;
      writeFileSync(
        join(repository, `src/module${part}/file${index}.ts`),
        `export const value${id} = ${id};\n// needle_${id}\n`,
      );
    }
  }
  const workspace = await Workspace.open(repository);
  const tools = Object.fromEntries(workspaceTools(workspace).map((tool) => [tool.name, tool]));
  const context = { signal: new AbortController().signal, callId: 'c', runId: 'r' };
  const found = String(await tools.find_files!.execute({ pattern: '**/*.ts' }, context)).split('\n');
  const searched = String(await tools.search_text!.execute({ pattern: 'needle_1999\\b' }, context));
  console.log(
    `repository: 100,000 ignored + 2,000 source files; find_files found ${found.length} paths, search_text: ${searched}`,
  );
  await measure('find_files **/file49.ts (100k ignored, 2k source)', 5, () =>
    tools.find_files!.execute({ pattern: '**/file49.ts' }, context),
  );
  await measure('search_text needle_1999 (100k ignored, 2k source)', 5, () =>
    tools.search_text!.execute({ pattern: 'needle_1999\\b' }, context),
  );
} finally {
  await rm(repository, { recursive: true, force: true });
}
