import { randomBytes, randomUUID } from 'node:crypto';

export interface IdGenerator {
  /** A 24-hex ObjectId: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter. */
  objectId(): string;
  uuid(): string;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function createIdGenerator(): IdGenerator {
  const processUnique = randomBytes(5);
  let counter = randomBytes(3).readUIntBE(0, 3);
  return {
    objectId() {
      const id = Buffer.alloc(12);
      id.writeUInt32BE(Math.floor(Date.now() / 1000), 0);
      processUnique.copy(id, 4);
      counter = (counter + 1) % 0xffffff;
      id.writeUIntBE(counter, 9, 3);
      return id.toString('hex');
    },
    uuid: () => randomUUID(),
  };
}

export const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
