// A reference server in a child process of its own, so that a test can kill it (SIGKILL: no
// close(), no deregistration). Options as JSON in argv[2]; prints its id and URL once it listens.
import { startReferenceServer } from '../../../reference-server/index';

const server = await startReferenceServer(JSON.parse(process.argv[2] ?? '{}'));
process.stdout.write(`${JSON.stringify({ instanceId: server.instanceId, baseUrl: server.baseUrl })}\n`);
