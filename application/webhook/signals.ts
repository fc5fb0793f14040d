import { EventEmitter } from 'node:events';

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
