import { EventEmitter } from 'node:events';
import type { DeliveryHandoff } from '../../projections/webhook/handoff.ts';

/**
 * In-process nudges to the dispatcher: the outbox committed rows, or a route queued a ping,
 * redelivery or replay. Other processes' dispatchers find the rows by polling.
 */
const emitter = new EventEmitter();
emitter.setMaxListeners(0);

export const dispatchSignal = {
  notify: () => emitter.emit('work'),
  listen(listener: () => void): () => void {
    emitter.on('work', listener);
    return () => emitter.off('work', listener);
  },
};

/** The dispatcher of each running service in this process (tests run several), for the outbox's hand-off. */
const dispatchers = new WeakMap<object, DeliveryHandoff>();

export function registerDispatcher(app: object, dispatcher: DeliveryHandoff): () => void {
  dispatchers.set(app, dispatcher);
  return () => dispatchers.delete(app);
}

/**
 * The hand-off the outbox of `app` uses: to the dispatcher of the same service, looked up at each
 * call because the outbox starts first and the dispatcher may be stopped before it.
 */
export function localHandoff(app: object): DeliveryHandoff {
  return {
    reserve: (organizationId) => dispatchers.get(app)?.reserve(organizationId) ?? null,
    take: (rows, reservedAt) => dispatchers.get(app)?.take(rows, reservedAt),
    release: (rows) => dispatchers.get(app)?.release(rows),
    changed: (subscriptionIds) => dispatchers.get(app)?.changed(subscriptionIds),
    queued: () => dispatchers.get(app)?.queued(),
  };
}
