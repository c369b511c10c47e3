import { ConfigError, describeValue } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { compileAllowHosts, type HostAllowList } from './host-allow-list';

/** Options of `httpFetchTool`. */
export interface HttpFetchToolOptions {
  /**
   * Hosts that may be fetched: exact (`example.com`) or `*.example.com` (subdomains only). Checked on every
   * redirect hop, in addition to the address guard. Default: every host with a public address.
   */
  allowHosts?: string[];
  /**
   * Allow loopback, private, CGNAT and unique-local addresses (a local server, an intranet). Link-local
   * (169.254/16, fe80::/10) and cloud metadata addresses (168.63.129.16, fd00:ec2::/64, ...) stay refused.
   * Default `false`.
   */
  allowPrivateNetworks?: boolean;
  /** Most bytes of (decoded) body read; the rest is dropped and `truncated` set. Default 1,000,000. */
  maxBytes?: number;
  /** Deadline for the whole fetch, redirects included, in milliseconds. Default 15,000. */
  timeoutMs?: number;
  /** Most redirects followed (0 to 20). Default 5. */
  maxRedirects?: number;
}

/** Options after validation, with defaults applied. */
export interface ResolvedHttpFetchOptions {
  allowHosts: HostAllowList | undefined;
  allowPrivateNetworks: boolean;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

const KNOWN_OPTIONS = ['allowHosts', 'allowPrivateNetworks', 'maxBytes', 'timeoutMs', 'maxRedirects'];

/** Validates `httpFetchTool` options. @throws ConfigError naming the option, the value and the allowed range. */
export function resolveHttpFetchOptions(options: HttpFetchToolOptions): ResolvedHttpFetchOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(`httpFetchTool: options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new ConfigError(
        `httpFetchTool: unknown option ${JSON.stringify(key)}; known options: ${KNOWN_OPTIONS.join(', ')}`,
      );
    }
  }
  if (options.allowPrivateNetworks !== undefined && typeof options.allowPrivateNetworks !== 'boolean') {
    throw new ConfigError(
      `httpFetchTool: allowPrivateNetworks must be a boolean, got ${describeValue(options.allowPrivateNetworks)}`,
    );
  }
  return {
    allowHosts: options.allowHosts === undefined ? undefined : compileAllowHosts(options.allowHosts),
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    maxBytes: integerOption('maxBytes', options.maxBytes, 1_000_000, {
      min: 1,
      max: 1_000_000_000,
      where: 'httpFetchTool',
    }),
    timeoutMs: integerOption('timeoutMs', options.timeoutMs, 15_000, {
      min: 1,
      max: 2_147_483_647,
      where: 'httpFetchTool',
    }),
    maxRedirects: integerOption('maxRedirects', options.maxRedirects, 5, { min: 0, max: 20, where: 'httpFetchTool' }),
  };
}
