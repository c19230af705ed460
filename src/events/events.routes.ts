import type { Request, Response } from 'express';
import { rawResponse, type OperationHandlers } from '../lib/http/operations';
import { admitted } from '../lib/http/admission';
import { tenantScope } from '../lib/tenancy';
import type { EventsService, StreamFrame, StreamSink } from './events.service';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** A frame in the text/event-stream format. */
const frameText = (f: StreamFrame) =>
  `${f.retryMs ? `retry: ${f.retryMs}\n` : ''}${f.id ? `id: ${f.id}\n` : ''}event: ${f.event}\n` +
  `data: ${JSON.stringify(f.data)}\n\n`;

/** The response as a stream's sink: server-sent events, written as they come. */
function sseSink(req: Request, res: Response): StreamSink {
  return {
    open() {
      if (res.destroyed || req.socket.destroyed) return false;
      res.writeHead(200, SSE_HEADERS);
      res.flushHeaders();
      admitted(res); // an open stream holds no slot of the HTTP edge's bound
      return true;
    },
    send: (frame) => void res.write(frameText(frame)),
    end: () => void res.end(),
    onClose: (fn) => void res.on('close', fn),
    goodbye(retryMs) {
      if (res.destroyed || res.writableEnded) return;
      res.end(`retry: ${retryMs}\n: the service is stopping; reconnect with Last-Event-ID\n\n`);
    },
    get closed() {
      return res.destroyed;
    },
  };
}

export function eventsRoutes(deps: { events: EventsService }): OperationHandlers {
  return {
    async streamEvents(req, res) {
      const lastEventId = req.get('last-event-id') ?? req.query.last_event_id;
      await deps.events.stream(tenantScope(req), lastEventId, sseSink(req, rawResponse(res)), req.credential);
    },
    async getEventStatus(req, res) {
      res.json(await deps.events.status(tenantScope(req)));
    },
  };
}
