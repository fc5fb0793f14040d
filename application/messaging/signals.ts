import { EventEmitter } from 'node:events';

/** In-process nudge to the dispatcher when the queue got rows; other processes' dispatchers poll. */
const emitter = new EventEmitter();
emitter.setMaxListeners(0);

export const messagingSignal = {
  notify: () => emitter.emit('work'),
  listen(listener: () => void): () => void {
    emitter.on('work', listener);
    return () => emitter.off('work', listener);
  },
};
