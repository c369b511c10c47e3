// The `bridle` package's programmatic entry: the command line as a function. Everything else in src/ is internal
// (the CLI's own modules import each other directly; nothing outside this package imported the 22 names that
// were exported here before).
export type { CliIO, CliOutput } from './cli-io';
export { main } from './main';
