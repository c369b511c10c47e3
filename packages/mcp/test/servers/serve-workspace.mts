// Serves the jailed workspace tools of the folder given as argv[2], and the calculator, over stdio.
// Flags: --max-result-chars N.
import { calculatorTool } from '@bridle/tools';
import { Workspace, workspaceTools } from '@bridle/workspace-tools';
import { serveMcp } from '../../src/index';

const root = process.argv[2] as string;
const maxIndex = process.argv.indexOf('--max-result-chars');
const workspace = await Workspace.open(root);
const handle = serveMcp([...workspaceTools(workspace), calculatorTool()], {
  name: 'bridle-test',
  instructions: 'Work inside the folder.',
  ...(maxIndex === -1 ? {} : { maxResultChars: Number(process.argv[maxIndex + 1]) }),
});
await handle.closed;
