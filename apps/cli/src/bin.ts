#!/usr/bin/env node
import { main } from './main';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Exit once output is flushed even if a misbehaving provider socket or tool keeps the event loop alive.
  setTimeout(() => process.exit(code), 1000).unref();
});
