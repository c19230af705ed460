import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

type History = proto.temporal.api.history.v1.IHistory;

/**
 * Histories as Temporal's JSON (what `temporal workflow show --output json` and the UI's download write), read and
 * written with the protobufjs that @temporalio/proto was built with. The SDK's own historyToJSON/historyFromJSON
 * take @temporalio/common's protobufjs, which npm installs as a separate copy here (a protobufjs 7 is hoisted for
 * other packages), and protobufjs refuses the types of another copy ("type must be a Type").
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module found by path at run time
const protojson = require(
  require.resolve('protobufjs/ext/protojson', {
    paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))],
  }),
) as { toJson(type: unknown, message: unknown): unknown; fromJson(type: unknown, json: unknown): unknown };

const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

export const historyToJson = (history: History): unknown =>
  protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));

export const historyFromJson = (json: unknown): History => protojson.fromJson(historyType, json) as History;
