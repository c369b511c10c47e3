import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The verdict of {@link checkAddress}: `address` is the canonical form that was checked; a refusal has
 * `problem` (`"a loopback address"`) and `reason` (`"127.0.0.1 is a loopback address"`).
 */
export type AddressCheck =
  | { allowed: true; address: string }
  | { allowed: false; address: string; problem: string; reason: string };

/** Options of {@link checkAddress}. */
export interface CheckAddressOptions {
  /** Allow loopback, private, unique-local and other non-public ranges. Link-local and cloud metadata stay refused. */
  allowPrivateNetworks?: boolean;
}

/**
 * Cloud instance metadata and host-agent endpoints: refused even with `allowPrivateNetworks`, whose point is
 * reaching the user's own services, never the machine's credentials. Reviewed against each cloud's docs:
 * - all of 169.254.0.0/16 and fe80::/10 (link-local: AWS IMDS 169.254.169.254, ECS task metadata
 *   169.254.170.2, EKS Pod Identity 169.254.170.23, Tencent 169.254.0.23, Scaleway 169.254.42.42, GCP,
 *   Azure IMDS, DigitalOcean, Hetzner, OpenStack 169.254.169.254 and fe80::a9fe:a9fe, ...);
 * - Azure WireServer 168.63.129.16, Alibaba 100.100.100.200, Oracle Cloud Classic 192.0.0.192;
 * - AWS fd00:ec2::/64 (IMDS fd00:ec2::254, Pod Identity fd00:ec2::23, DNS fd00:ec2::253), GCP fd20:ce::254,
 *   Oracle fd00:c1::a9fe:a9fe, Linode/Akamai fd00:a9fe:a9fe::1, Scaleway fd00:42::42.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '169.254.0.23',
  '169.254.42.42',
  'fd00:ec2::254',
  'fd00:ec2::23',
  'fe80::a9fe:a9fe',
  '168.63.129.16',
  '100.100.100.200',
  '192.0.0.192',
  'fd20:ce::254',
  'fd00:c1::a9fe:a9fe',
  'fd00:a9fe:a9fe::1',
  'fd00:42::42',
]);
/** Ranges refused whatever the options, with what to call an address in them. */
const METADATA_RANGES: [ipaddr.IPv4 | ipaddr.IPv6, number, string][] = [
  [ipaddr.parse('169.254.0.0'), 16, 'a link-local address'],
  [ipaddr.parse('fe80::'), 10, 'a link-local address'],
  [ipaddr.parse('fd00:ec2::'), 64, 'a cloud metadata address (AWS fd00:ec2::/64)'],
];

/** Why `address` is refused whatever the options (metadata and link-local), or `undefined`. */
function metadataProblem(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (METADATA_ADDRESSES.has(address.toString())) return 'a cloud metadata address';
  for (const [range, bits, problem] of METADATA_RANGES) {
    if (range.kind() === address.kind() && address.match(range as never, bits)) return problem;
  }
  return undefined;
}

const IPV4_RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified (0.0.0.0/8) address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private network address',
  reserved: 'a reserved address',
  as112: 'a special-purpose (AS112) address',
  amt: 'a special-purpose (AMT) address',
};

const IPV6_RANGE_NAMES: Record<string, string> = {
  unspecified: 'the unspecified address (::)',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  loopback: 'a loopback address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  rfc6052: 'a NAT64 local-use (64:ff9b:1::/48) address',
  reserved: 'a reserved address',
};

/**
 * Decides whether an IP address is a public internet address the fetch tool may connect to.
 *
 * Accepts any spelling that the WHATWG URL parser or DNS would turn into an address: decimal, octal and
 * hex IPv4 (`2130706433`, `0177.0.0.1`, `0x7f.1`), short forms (`127.1`), trailing dots, IPv6 with or
 * without brackets and zone ids. Refused: loopback, private (10/8, 172.16/12, 192.168/16), link-local,
 * carrier-grade NAT, unique-local, multicast, unspecified, broadcast, reserved and documentation ranges,
 * every IPv6 address outside global unicast `2000::/3`, and cloud metadata addresses. IPv4-mapped,
 * IPv4-compatible, NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) IPv6 addresses are judged by the IPv4
 * address they embed. Anything that is not an IP address is refused. Never throws.
 */
export function checkAddress(input: string, options: CheckAddressOptions = {}): AddressCheck {
  const parsed = parseAddress(input);
  if (parsed === undefined) {
    const problem = 'not an IP address';
    return { allowed: false, address: input, problem, reason: `${JSON.stringify(input)} is ${problem}` };
  }
  const address = parsed.toString();
  const problem = findProblem(parsed, options.allowPrivateNetworks === true);
  return problem === undefined
    ? { allowed: true, address }
    : { allowed: false, address, problem, reason: `${address} is ${problem}` };
}

function parseAddress(input: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let candidate = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const isIpv6 = candidate.includes(':');
  if (isIpv6) candidate = candidate.split('%')[0]!; // zone id: fe80::1%eth0
  if (isIpv6 || isIP(candidate) === 0) {
    // Normalise the way a URL would: 127.1, 0x7f000001, trailing dots, full-width digits, and IPv6
    // with dotted quads (::127.0.0.1, which ipaddr.js would misread as IPv4-mapped) to hex.
    try {
      const hostname = new URL(`http://${isIpv6 ? `[${candidate}]` : candidate}/`).hostname;
      candidate = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    } catch {
      return undefined;
    }
  }
  if (isIP(candidate) === 0) return undefined;
  try {
    return ipaddr.parse(candidate);
  } catch {
    return undefined;
  }
}

/** Describes why the address is refused, or `undefined` when it may be used. */
function findProblem(address: ipaddr.IPv4 | ipaddr.IPv6, allowPrivateNetworks: boolean): string | undefined {
  const always = metadataProblem(address);
  if (always !== undefined) return always;
  if (address.kind() === 'ipv4') {
    if (allowPrivateNetworks) return undefined;
    const range = address.range();
    return range === 'unicast' ? undefined : (IPV4_RANGE_NAMES[range] ?? `a special-purpose (${range}) address`);
  }
  const ipv6 = address as ipaddr.IPv6;
  const embedded = embeddedIpv4(ipv6);
  if (embedded !== undefined) {
    const problem = findProblem(embedded.address, allowPrivateNetworks);
    return problem === undefined ? undefined : `${embedded.kind} embedding ${embedded.address.toString()}, ${problem}`;
  }
  if (allowPrivateNetworks) return undefined;
  const range = ipv6.range();
  if (range !== 'unicast') return IPV6_RANGE_NAMES[range] ?? `a special-purpose (${range}) address`;
  // ipaddr.js calls everything it has no name for "unicast"; only 2000::/3 is routed on the internet.
  if (!ipv6.match(ipaddr.IPv6.parse('2000::'), 3)) return 'outside the global unicast range 2000::/3';
  return undefined;
}

/** The IPv4 address inside IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 and 6to4 IPv6 addresses. */
function embeddedIpv4(address: ipaddr.IPv6): { kind: string; address: ipaddr.IPv4 } | undefined {
  const parts = address.parts;
  const low32 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145')
    return { kind: 'an IPv4-mapped address', address: low32(parts[6]!, parts[7]!) };
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96))
    return { kind: 'a NAT64 address', address: low32(parts[6]!, parts[7]!) };
  if (range === '6to4') return { kind: 'a 6to4 address', address: low32(parts[1]!, parts[2]!) };
  // IPv4-compatible ::a.b.c.d (deprecated); :: and ::1 have their own names.
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) {
    return { kind: 'an IPv4-compatible address', address: low32(parts[6]!, parts[7]!) };
  }
  return undefined;
}
