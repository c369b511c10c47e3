#!/usr/bin/env node
import { main } from './main';

// A reader that goes away (`bridle run ... | head -1`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// `node dist/bin.js -- <command> ...` keeps an `--env-file` argument from Node itself (which reads it before
// any script runs); the `--` is Node's, not a word of the command.
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();

main(args).then((code) => {
  process.exitCode = code;
  // Exit once output is flushed even if a misbehaving provider socket or tool keeps the event loop alive.
  setTimeout(() => process.exit(code), 1000).unref();
});
