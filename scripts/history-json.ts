// Workflow histories to and from proto3 JSON (enums as `EVENT_TYPE_…`, 64-bit ids as strings, times as RFC 3339),
// the format Temporal's tools export histories in: what scripts/export-workflow-histories.ts writes and
// test/workflows/replay.test.ts reads.
//
// @temporalio/common's historyToJSON/historyFromJSON do the same but fail here with "type must be a Type":
// npm installs a copy of protobufjs 8 under each @temporalio package (the top-level one is @grpc/proto-loader's
// protobufjs 7), and common's protojson rejects the message types of @temporalio/proto's copy. The protojson
// extension of the copy @temporalio/proto itself loads accepts them, whichever way npm lays the tree out.
import { createRequire } from 'node:module';
import proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';

type History = proto.temporal.api.history.v1.IHistory;
type MessageType = { name: string };

const requireFromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protojson = requireFromProto('protobufjs/ext/protojson') as {
  toJson(type: MessageType, message: unknown): unknown;
  fromJson(type: MessageType, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): MessageType }).lookupType('temporal.api.history.v1.History');

/** The history as JSON text (two-space indented, as the CLI writes it). */
export const historyToJSON = (history: History): string =>
  JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2);

/** A history read from such JSON, as Worker.runReplayHistories takes it (fields a newer server adds are ignored). */
export function historyFromJSON(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a workflow history');
  return history as History;
}
