import { parentPort, workerData } from 'node:worker_threads';
import { SendLane } from './send-lane.ts';
import { sendAttempt, type FromLane, type ToLane } from './sender.ts';

/** The dispatcher's send lane on a thread of its own (see openDeliveryLane). */
const port = parentPort!;
const post = (message: FromLane) => port.postMessage(message);
const lane = new SendLane((workerData as { concurrency: number }).concurrency, sendAttempt, (results) => post({ kind: 'results', results }));

port.on('message', (message: ToLane) => {
  if (message.kind === 'add') lane.add(message.items);
  else post({ kind: 'dropped', request: message.request, ids: lane.drop(message.subscriptionIds) });
});
