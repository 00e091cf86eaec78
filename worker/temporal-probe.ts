// The readiness probe of an API instance in the Temporal shape: the Temporal server answers for the namespace the
// processes run in. The connection is lazy, so a server that is down when the API starts makes it unready, not dead.
// The client (gRPC, protobufs: about 20 MB resident) is loaded on the first check, so the embedded shape never loads it.
import type { Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../lib/temporal-connection.ts';

export function temporalProbe(options: { address: string; namespace: string } & TemporalConnectionOptions) {
  let connection: Connection | undefined;
  return {
    name: 'temporal',
    check: async () => {
      connection ??= (await import('@temporalio/client')).Connection.lazy({
        address: options.address,
        ...(options.tls ? { tls: options.tls } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      });
      await connection.workflowService.describeNamespace({ namespace: options.namespace });
    },
    close: () => connection?.close(),
  };
}
