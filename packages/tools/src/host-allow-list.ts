import { ConfigError, describeValue } from '@bridle/protocol';

/** A compiled host allow-list: `matches(hostname)` for a URL's `hostname`. */
export interface HostAllowList {
  matches(hostname: string): boolean;
  readonly entries: readonly string[];
}

/** Lower-case, without trailing dots: `Example.COM.` and `example.com` are the same host. */
export function normalizeHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '');
}

/**
 * Compiles `allowHosts` entries: an exact host (`example.com`, `93.184.216.34`, `[2606:4700::1]`) or a
 * wildcard `*.example.com`, which matches every subdomain (`a.example.com`, `a.b.example.com`) but not
 * `example.com` itself. Entries are hosts only: no scheme, port, path or credentials.
 * @throws ConfigError naming the first bad entry.
 */
export function compileAllowHosts(entries: unknown): HostAllowList {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new ConfigError(
      `httpFetchTool: allowHosts must be a non-empty array of host names, got ${describeValue(entries)}; omit it to allow every public host`,
    );
  }
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of entries) {
    const host = typeof entry === 'string' ? canonicalHost(entry.startsWith('*.') ? entry.slice(2) : entry) : undefined;
    if (typeof entry !== 'string' || host === undefined || (entry.startsWith('*.') && host.startsWith('['))) {
      throw new ConfigError(
        `httpFetchTool: allowHosts entry ${describeValue(entry)} is not a host name; write "example.com" or "*.example.com" (no scheme, port or path)`,
      );
    }
    if (entry.startsWith('*.')) suffixes.push(`.${host}`);
    else exact.add(host);
  }
  return {
    entries: entries as string[],
    matches(hostname: string): boolean {
      const host = normalizeHostname(hostname);
      return exact.has(host) || suffixes.some((suffix) => host.endsWith(suffix));
    },
  };
}

/** The host as a URL would spell it, or `undefined` when the entry is more than a host. */
function canonicalHost(entry: string): string | undefined {
  if (entry.length === 0 || /[/?#@\s*]/.test(entry)) return undefined;
  try {
    const url = new URL(`http://${entry}/`);
    if (url.port !== '' || url.hostname === '') return undefined;
    // The URL spelling: punycode for international names, canonical IP literals.
    return normalizeHostname(url.hostname);
  } catch {
    return undefined;
  }
}
