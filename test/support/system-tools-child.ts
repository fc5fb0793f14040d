/** A suite needing the program named in argv[2], run by test/foundation/system-tools.test.ts in a process of its own. */
import { suiteNeeding } from './system-tools.ts';

const test = suiteNeeding('needs a program', [{ command: process.argv[2]!, install: 'apt-get install -y it' }]);
test.before(() => console.log('the hook ran'));
test('first', () => console.log('the first test ran'));
test('second', () => undefined);
test.run();
