// Which network addresses the gateway may call on a tenant's behalf (webhook URLs): only public unicast ones.
// Loopback, private, link-local, CGNAT, ULA, multicast, broadcast, unspecified, documentation and reserved
// ranges are refused, so a tenant cannot make the dispatcher POST into our own network (SSRF). Development
// (WEBHOOK_ALLOW_PRIVATE_NETWORKS) adds the developer's own networks, never link-local or a cloud metadata address.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** `code` of the error a guarded lookup fails with when the host resolves to an address that is refused. */
export const ADDRESS_REFUSED_CODE = "ERR_GW_ADDRESS_REFUSED";

export interface AddressClass {
  /**
   * ipaddr.js's range name (`unicast` for a public address; `loopback`, `private`, `linkLocal`,
   * `carrierGradeNat`, `uniqueLocal`, `multicast`, `broadcast`, `unspecified`, `reserved`, ...), or one of ours:
   * `cloudMetadata` (a cloud's instance metadata or platform address outside link-local), `ipv4Compatible`
   * (::a.b.c.d), `nat64:<range of the embedded IPv4>`, `notGlobalUnicast` (IPv6 outside 2000::/3), `invalid` (not
   * an IP address).
   */
  range: string;
  allowed: boolean;
}

/** Whether the loopback and private networks a developer's receivers live on are allowed too (development). */
export interface AddressPolicy {
  allowPrivateNetworks?: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
const IPV4_COMPATIBLE_V6 = ipaddr.IPv6.parseCIDR("::/96");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/**
 * Cloud addresses that hand out credentials or configuration and sit outside link-local (169.254/16 and fe80::/10
 * are refused whole): refused whatever the policy, as link-local is.
 */
const CLOUD_METADATA_V4 = [
  // Alibaba Cloud's instance metadata (inside CGNAT 100.64/10).
  ipaddr.IPv4.parseCIDR("100.100.100.200/32"),
  // Azure's platform address (WireServer, the VM agent's goal state): public unicast.
  ipaddr.IPv4.parseCIDR("168.63.129.16/32"),
];
// AWS's IPv6 services (inside ULA fc00::/7): IMDS fd00:ec2::254, DNS ::253, EKS Pod Identity ::23.
const CLOUD_METADATA_V6 = [ipaddr.IPv6.parseCIDR("fd00:ec2::/32")];

/**
 * What development adds to public unicast: the ranges a developer's receivers are on (this machine, the LAN, a
 * container network, a VPN's CGNAT). Not link-local: nothing a developer runs needs 169.254/16 or fe80::/10, and
 * it is where the clouds' metadata services answer.
 */
const PRIVATE_NETWORK_RANGES: ReadonlySet<string> = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);

/**
 * Classifies one IP address (v4 or v6, optionally in brackets). Allowed: public unicast addresses (IPv4 outside
 * every special-purpose range, IPv6 in 2000::/3 outside every special-purpose range, NAT64 64:ff9b::/96 addresses
 * whose embedded IPv4 is itself public), and with `allowPrivateNetworks` also loopback, private, ULA and CGNAT
 * addresses (an IPv4-mapped or NAT64 address then judged by its IPv4). Every IPv4-mapped address is refused
 * otherwise; link-local and cloud metadata addresses are refused always, in every form.
 */
export function classifyAddress(address: string, policy: AddressPolicy = {}): AddressClass {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  // net.isIP accepts only the canonical forms a resolver or WHATWG URL produce (no 0x7f.1 / 2130706433).
  if (isIP(text) === 0) return { range: "invalid", allowed: false };
  const allowPrivateNetworks = policy.allowPrivateNetworks === true;
  const parsed = ipaddr.parse(text);
  if (parsed instanceof ipaddr.IPv4) return verdict(rangeOfIPv4(parsed), allowPrivateNetworks);
  if (CLOUD_METADATA_V6.some((cidr) => parsed.match(cidr))) return verdict("cloudMetadata", allowPrivateNetworks);
  const range = parsed.range();
  if (range === "ipv4Mapped")
    // No resolver answers a mapped address for a real endpoint; a developer may write [::ffff:127.0.0.1].
    return { range, allowed: allowPrivateNetworks && verdict(rangeOfIPv4(parsed.toIPv4Address()), true).allowed };
  if (range === "rfc6052" && parsed.match(NAT64_WELL_KNOWN)) {
    const [, , , , , , high = 0, low = 0] = parsed.parts;
    const embedded = rangeOfIPv4(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
    const { allowed } = verdict(embedded, allowPrivateNetworks);
    return { range: embedded === "unicast" ? "unicast" : `nat64:${embedded}`, allowed };
  }
  if (range !== "unicast") return verdict(range, allowPrivateNetworks);
  if (parsed.match(IPV4_COMPATIBLE_V6)) return verdict("ipv4Compatible", allowPrivateNetworks);
  if (!parsed.match(GLOBAL_UNICAST_V6)) return verdict("notGlobalUnicast", allowPrivateNetworks);
  return verdict("unicast", allowPrivateNetworks);
}

function rangeOfIPv4(address: ipaddr.IPv4): string {
  return CLOUD_METADATA_V4.some((cidr) => address.match(cidr)) ? "cloudMetadata" : address.range();
}

function verdict(range: string, allowPrivateNetworks: boolean): AddressClass {
  return { range, allowed: range === "unicast" || (allowPrivateNetworks && PRIVATE_NETWORK_RANGES.has(range)) };
}

/** The IP literal a URL names as its host (IPv6 without brackets), or null when the host is a name. */
export function ipLiteralHost(url: URL): string | null {
  // WHATWG URL has already turned 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 into 127.0.0.1.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/** Names that always resolve to loopback (RFC 6761): `localhost` and `*.localhost`, with or without the final dot. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED_CODE;

  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`Conexão recusada: ${hostname} resolve para ${address} (${range}), um endereço que o gateway não chama.`);
    this.name = "AddressRefusedError";
  }
}

/** What a guarded lookup asks the resolver: every address of the name (dns.lookup with `all: true`). */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for node's net/http/https (`new http.Agent({ lookup })`): resolves the name, checks EVERY address
 * under `policy` and fails with `ADDRESS_REFUSED_CODE` when any of them is refused. The socket then connects only
 * to the addresses checked here, so a DNS answer that changes after the check (rebinding) is never used.
 * Node skips `lookup` for an IP literal host: check those with `ipLiteralHost` + `classifyAddress` first.
 */
export function createGuardedLookup(resolve: Resolver = dnsLookup, policy: AddressPolicy = {}): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      for (const entry of addresses) {
        const { range, allowed } = classifyAddress(entry.address, policy);
        if (!allowed) {
          callback(new AddressRefusedError(hostname, entry.address, range), []);
          return;
        }
      }
      const [first] = addresses;
      if (!first) {
        callback(Object.assign(new Error(`Nenhum endereço para ${hostname}.`), { code: "ENOTFOUND" }), []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
