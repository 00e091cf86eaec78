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
  /** Withdraws the records of `name`: it answers NXDOMAIN again. */
  remove(name: string): void;
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const queries: string[] = [];
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    for (const question of request.questions) {
      const name = normalize(question.name);
      queries.push(name);
      const values = records.get(name);
      if (!values) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (question.type === Packet.TYPE.TXT) {
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
    remove: (name) => void records.delete(normalize(name)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
