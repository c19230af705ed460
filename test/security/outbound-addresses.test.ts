import { forbiddenAddressReason } from '../../src/lib/outbound';

/** The address check alone (net.BlockList): every refused range by its reason, and public addresses passing. */
describe('forbiddenAddressReason', () => {
  it.each([
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['100.64.1.1', 'carrier-grade NAT'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['192.0.0.8', 'IETF protocol assignment'],
    ['198.19.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['fec0::1', 'site-local'],
    ['64:ff9b::808:808', 'NAT64'],
    ['64:ff9b:1::a00:5', 'NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ])('refuses %s as %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    // IPv4-mapped (::ffff:0:0/96), in both spellings.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:a00:5', 'private'],
    // IPv4-compatible (::/96, deprecated but still parsed by stacks).
    ['::127.0.0.1', 'loopback'],
    ['::c0a8:101', 'private'],
    ['::a9fe:a9fe', 'cloud metadata'],
    // 6to4 (2002::/16): the IPv4 address is in bits 16-47.
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'cloud metadata'],
    ['2002:ac10:1::1', 'private'],
  ])('refuses IPv4 carried in IPv6, %s as %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::808:808',
    '2002:808:808::1',
    '2001:db9::1',
  ])('lets the public address %s be called', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('calls what is not an address unparseable', () => {
    expect(forbiddenAddressReason('example.com')).toBe('unparseable');
    expect(forbiddenAddressReason('999.1.1.1')).toBe('unparseable');
    expect(forbiddenAddressReason('')).toBe('unparseable');
  });
});
