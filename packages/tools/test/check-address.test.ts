import { describe, expect, it } from 'vitest';
import { checkAddress } from '../src/check-address';

describe('checkAddress refuses every spelling of non-public addresses', () => {
  it.each([
    // loopback, in every IPv4 spelling the URL parser and inet_aton accept
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.1', '127.0.0.1 is a loopback address'],
    ['127.0.1', '127.0.0.1 is a loopback address'],
    ['2130706433', '127.0.0.1 is a loopback address'],
    ['0x7f000001', '127.0.0.1 is a loopback address'],
    ['0x7F.0.0.1', '127.0.0.1 is a loopback address'],
    ['0x7f.1', '127.0.0.1 is a loopback address'],
    ['0177.0.0.1', '127.0.0.1 is a loopback address'],
    ['017700000001', '127.0.0.1 is a loopback address'],
    ['127.0.0.1.', '127.0.0.1 is a loopback address'],
    ['127.255.255.254', '127.255.255.254 is a loopback address'],
    ['①②⑦.⓪.⓪.①', '127.0.0.1 is a loopback address'],
    ['::1', '::1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['0:0:0:0:0:0:0:1', '::1 is a loopback address'],
    ['[0000::0001]', '::1 is a loopback address'],
    // IPv4 inside IPv6
    ['::ffff:127.0.0.1', '::ffff:7f00:1 is an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1 is an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['0:0:0:0:0:ffff:10.0.0.1', '::ffff:a00:1 is an IPv4-mapped address embedding 10.0.0.1, a private network address'],
    [
      '::ffff:0:169.254.169.254',
      '::ffff:0:a9fe:a9fe is an IPv4-mapped address embedding 169.254.169.254, a cloud metadata address',
    ],
    ['::127.0.0.1', '::7f00:1 is an IPv4-compatible address embedding 127.0.0.1, a loopback address'],
    ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1 is a NAT64 address embedding 127.0.0.1, a loopback address'],
    ['64:ff9b::192.168.1.1', '64:ff9b::c0a8:101 is a NAT64 address embedding 192.168.1.1, a private network address'],
    ['64:ff9b:1::1', '64:ff9b:1::1 is a NAT64 local-use (64:ff9b:1::/48) address'],
    ['2002:7f00:1::', '2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address'],
    ['2002:a9fe:a9fe::1', '2002:a9fe:a9fe::1 is a 6to4 address embedding 169.254.169.254, a cloud metadata address'],
    // private and shared ranges
    ['10.0.0.1', '10.0.0.1 is a private network address'],
    ['10.255.255.255', '10.255.255.255 is a private network address'],
    ['012.0.0.1', '10.0.0.1 is a private network address'],
    ['167772161', '10.0.0.1 is a private network address'],
    ['172.16.0.1', '172.16.0.1 is a private network address'],
    ['172.31.255.254', '172.31.255.254 is a private network address'],
    ['192.168.0.1', '192.168.0.1 is a private network address'],
    ['0xc0.0xa8.1.1', '192.168.1.1 is a private network address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT (100.64.0.0/10) address'],
    ['100.127.255.254', '100.127.255.254 is a carrier-grade NAT (100.64.0.0/10) address'],
    // link-local and metadata
    ['169.254.1.1', '169.254.1.1 is a link-local address'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
    ['0251.0376.0251.0376', '169.254.169.254 is a cloud metadata address'],
    ['2852039166', '169.254.169.254 is a cloud metadata address'],
    ['0xa9fea9fe', '169.254.169.254 is a cloud metadata address'],
    ['169.254.170.2', '169.254.170.2 is a cloud metadata address'],
    ['100.100.100.200', '100.100.100.200 is a cloud metadata address'],
    ['fd00:ec2::254', 'fd00:ec2::254 is a cloud metadata address'],
    ['[FD00:0EC2:0:0:0:0:0:0254]', 'fd00:ec2::254 is a cloud metadata address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['fe80::1%eth0', 'fe80::1 is a link-local address'],
    ['febf::1', 'febf::1 is a link-local address'],
    ['fc00::1', 'fc00::1 is a unique-local (fc00::/7) address'],
    ['fd12:3456::1', 'fd12:3456::1 is a unique-local (fc00::/7) address'],
    ['fec0::1', 'fec0::1 is a site-local address'],
    // unspecified, broadcast, multicast, reserved
    ['0.0.0.0', '0.0.0.0 is an unspecified (0.0.0.0/8) address'],
    ['0', '0.0.0.0 is an unspecified (0.0.0.0/8) address'],
    ['0.1.2.3', '0.1.2.3 is an unspecified (0.0.0.0/8) address'],
    ['::', ':: is the unspecified address (::)'],
    ['255.255.255.255', '255.255.255.255 is the broadcast address'],
    ['0xffffffff', '255.255.255.255 is the broadcast address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['239.255.255.250', '239.255.255.250 is a multicast address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['240.0.0.1', '240.0.0.1 is a reserved address'],
    ['192.0.2.1', '192.0.2.1 is a reserved address'],
    ['198.18.0.1', '198.18.0.1 is a reserved address'],
    ['192.0.0.192', '192.0.0.192 is a cloud metadata address'],
    ['2001:db8::1', '2001:db8::1 is a reserved address'],
    ['2001::1', '2001::1 is a Teredo tunnel address'],
    ['100::1', '100::1 is a discard-only address'],
    ['4000::1', '4000::1 is outside the global unicast range 2000::/3'],
    // not addresses at all
    ['localhost', '"localhost" is not an IP address'],
    ['example.com', '"example.com" is not an IP address'],
    ['256.0.0.1', '"256.0.0.1" is not an IP address'],
    ['', '"" is not an IP address'],
    ['1.2.3.4.5', '"1.2.3.4.5" is not an IP address'],
  ])('%s', (input, reason) => {
    expect(checkAddress(input)).toMatchObject({ allowed: false, reason });
  });
});

describe('checkAddress allows public addresses', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['1.1.1.1', '1.1.1.1'],
    ['134744072', '8.8.8.8'],
    ['93.184.216.34', '93.184.216.34'],
    ['172.32.0.1', '172.32.0.1'],
    ['100.128.0.1', '100.128.0.1'],
    ['2606:4700:4700::1111', '2606:4700:4700::1111'],
    ['[2001:4860:4860::8888]', '2001:4860:4860::8888'],
    ['::ffff:8.8.8.8', '::ffff:808:808'],
    ['64:ff9b::8.8.8.8', '64:ff9b::808:808'],
  ])('%s', (input, address) => {
    expect(checkAddress(input)).toEqual({ allowed: true, address });
  });
});

describe('checkAddress with allowPrivateNetworks', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '::1',
    '::ffff:192.168.1.1',
    'fd12::1',
    '100.64.0.1',
    'fd00:ec3::1',
    'fd20:ce::253',
  ])('allows %s', (input) => {
    expect(checkAddress(input, { allowPrivateNetworks: true }).allowed).toBe(true);
  });

  // SPEC "Workspace trust": metadata stays refused, even with allowPrivateNetworks (issue 18 item 8).
  it.each([
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'], // AWS, GCP, Azure IMDS, OpenStack, ...
    ['0xa9fea9fe', '169.254.169.254 is a cloud metadata address'],
    [
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe is an IPv4-mapped address embedding 169.254.169.254, a cloud metadata address',
    ],
    ['169.254.170.2', '169.254.170.2 is a cloud metadata address'], // AWS ECS task metadata
    ['169.254.170.23', '169.254.170.23 is a cloud metadata address'], // AWS EKS Pod Identity
    ['169.254.0.23', '169.254.0.23 is a cloud metadata address'], // Tencent Cloud
    ['169.254.42.42', '169.254.42.42 is a cloud metadata address'], // Scaleway
    ['169.254.1.1', '169.254.1.1 is a link-local address'], // all of 169.254.0.0/16
    ['169.254.255.255', '169.254.255.255 is a link-local address'],
    ['168.63.129.16', '168.63.129.16 is a cloud metadata address'], // Azure WireServer
    [
      '::ffff:168.63.129.16',
      '::ffff:a83f:8110 is an IPv4-mapped address embedding 168.63.129.16, a cloud metadata address',
    ],
    [
      '64:ff9b::168.63.129.16',
      '64:ff9b::a83f:8110 is a NAT64 address embedding 168.63.129.16, a cloud metadata address',
    ],
    ['100.100.100.200', '100.100.100.200 is a cloud metadata address'], // Alibaba
    ['192.0.0.192', '192.0.0.192 is a cloud metadata address'], // Oracle Cloud Classic
    ['fd00:ec2::254', 'fd00:ec2::254 is a cloud metadata address'], // AWS IMDS over IPv6
    ['fd00:ec2::23', 'fd00:ec2::23 is a cloud metadata address'], // AWS EKS Pod Identity over IPv6
    ['fd00:ec2::253', 'fd00:ec2::253 is a cloud metadata address (AWS fd00:ec2::/64)'], // the rest of fd00:ec2::/64
    ['fd00:ec2::ffff:ffff:ffff:ffff', 'fd00:ec2::ffff:ffff:ffff:ffff is a cloud metadata address (AWS fd00:ec2::/64)'],
    ['fd20:ce::254', 'fd20:ce::254 is a cloud metadata address'], // GCP over IPv6
    ['fd00:c1::a9fe:a9fe', 'fd00:c1::a9fe:a9fe is a cloud metadata address'], // Oracle Cloud over IPv6
    ['fd00:a9fe:a9fe::1', 'fd00:a9fe:a9fe::1 is a cloud metadata address'], // Linode / Akamai over IPv6
    ['fd00:42::42', 'fd00:42::42 is a cloud metadata address'], // Scaleway over IPv6
    ['fe80::a9fe:a9fe', 'fe80::a9fe:a9fe is a cloud metadata address'], // OpenStack over IPv6
    ['fe80::1%eth0', 'fe80::1 is a link-local address'], // all of fe80::/10
    ['febf:ffff::1', 'febf:ffff::1 is a link-local address'],
  ])('still refuses %s', (input, reason) => {
    expect(checkAddress(input, { allowPrivateNetworks: true })).toEqual({
      allowed: false,
      address: expect.any(String),
      problem: expect.any(String),
      reason,
    });
    expect(checkAddress(input)).toMatchObject({ allowed: false });
  });
});
