import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dueReminderDay, nextReminderAt } from '../../application/collection/notifications/schedule.ts';

const test = suite('collection notifications: reminder schedule');
const SENT = '2026-11-01T12:00:00.000Z';
const EXPIRES = '2026-11-08T12:00:00.000Z';
const day = (n: number) => Date.parse(SENT) + n * 86_400_000;

test('the next reminder is the first configured day after the given moment and before the deadline', () => {
  assert.equal(nextReminderAt(SENT, EXPIRES, [3, 1, 5], Date.parse(SENT)), new Date(day(1)));
  assert.equal(nextReminderAt(SENT, EXPIRES, [1, 3, 5], day(1)), new Date(day(3)));
  assert.equal(nextReminderAt(SENT, EXPIRES, [1, 3, 5], day(4)), new Date(day(5)));
  assert.is(nextReminderAt(SENT, EXPIRES, [1, 3, 5], day(5)), null, 'none left');
  assert.is(nextReminderAt(SENT, EXPIRES, [7, 9], Date.parse(SENT)), null, 'a reminder at or after the deadline is never scheduled');
  assert.is(nextReminderAt(SENT, EXPIRES, [], Date.parse(SENT)), null);
});

test('the due day is the latest one reached: missed days are not sent one after another', () => {
  assert.is(dueReminderDay(SENT, [1, 3], day(1) - 1), null);
  assert.is(dueReminderDay(SENT, [1, 3], day(1)), 1);
  assert.is(dueReminderDay(SENT, [1, 3], day(4)), 3);
});

test.run();
