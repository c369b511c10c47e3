// Reads stdin and never answers anything: a server that never completes `initialize`.
process.stdin.resume();
setInterval(() => undefined, 60_000);
