import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressCheck } from './check-address';

/** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`, which ignores proxies). */
export type ResolveHost = (hostname: string, family: number) => Promise<LookupAddress[]>;

/** A fetch the guard refused; `address` is set when the refusal is about where it would connect. */
export class FetchRefusedError extends Error {
  readonly address: boolean;
  constructor(message: string, options: { address?: boolean } = {}) {
    super(message);
    this.name = 'FetchRefusedError';
    this.address = options.address === true;
  }
}

/** The default resolver: the operating system's, through `dns.lookup`. */
export const systemResolve: ResolveHost = (hostname, family) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, family, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/**
 * A `lookup` for `http.request` that resolves the host and refuses the connection unless EVERY resolved
 * address passes `check`. The socket then connects only to addresses that were checked, so a DNS answer
 * that changes between check and use (rebinding) cannot slip through.
 */
export function guardedLookup(resolve: ResolveHost, check: (address: string) => AddressCheck): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, typeof options.family === 'number' ? options.family : 0).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        for (const entry of addresses) {
          const verdict = check(entry.address);
          if (!verdict.allowed) {
            callback(
              new FetchRefusedError(`${hostname} resolves to ${verdict.address}, ${verdict.problem}`, {
                address: true,
              }),
              '',
              0,
            );
            return;
          }
        }
        if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
