import { isIP } from 'node:net';

/**
 * True when `host` only accepts connections from this machine: `localhost`, `127.0.0.0/8`, `::1` (and
 * its IPv4-mapped form). Wildcards (`0.0.0.0`, `::`) and any other name count as reachable from outside.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const version = isIP(bare);
  if (version === 4) return bare.startsWith('127.');
  if (version === 6) {
    const lower = bare.toLowerCase();
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && (mapped[1] as string).startsWith('127.');
  }
  return false;
}
