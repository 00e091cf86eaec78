// A local DNS server speaking the real protocol (UDP on 127.0.0.1, a free port), answering TXT queries from
// records the test controls: point DNS_SERVERS at `address` and publish or withdraw records at will.
import type { AddressInfo } from 'node:net';
import { createUDPServer, Packet } from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, a DNS_SERVERS value. */
  address: string;
  /** Every name asked about, in order (lowercased, without the trailing dot). */
  queries: string[];
  /** Publishes the TXT records of `name` (each value one record), replacing any before. */
  setTxt(name: string, ...values: string[]): void;
  /** Publishes a CNAME record at `name` (vanity domains), replacing any before. */
  setCname(name: string, target: string): void;
  /** Publishes an A record at `name` (what an ACME CA connects to for HTTP-01), replacing any before. */
  setA(name: string, address: string): void;
  /** Withdraws the records of `name`: it answers NXDOMAIN again. */
  remove(name: string): void;
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const cnames = new Map<string, string>();
  const addresses = new Map<string, string>();
  const queries: string[] = [];
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    for (const question of request.questions) {
      const name = normalize(question.name);
      queries.push(name);
      const values = records.get(name);
      const cname = cnames.get(name);
      const address = addresses.get(name);
      const answer = { name: question.name, class: Packet.CLASS.IN, ttl: 0 };
      if (!values && !cname && !address) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (question.type === Packet.TYPE.CNAME && cname) response.answers.push({ ...answer, type: Packet.TYPE.CNAME, domain: cname } as never);
      else if (question.type === Packet.TYPE.A && address) response.answers.push({ ...answer, type: Packet.TYPE.A, address } as never);
      else if (question.type === Packet.TYPE.TXT && values) {
        for (const data of values) response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data } as never);
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    queries,
    setTxt: (name, ...values) => void records.set(normalize(name), values),
    setCname: (name, target) => void cnames.set(normalize(name), target),
    setA: (name, address) => void addresses.set(normalize(name), address),
    remove: (name) => {
      records.delete(normalize(name));
      cnames.delete(normalize(name));
      addresses.delete(normalize(name));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
