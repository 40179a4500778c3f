import { openWs } from '../../adapters/ws';
import { describeStreamContract } from './contract-cases';
import { spyTransport } from './servers';

// Node 20: the `ws` package, with the key in `Authorization: Bearer`.
describeStreamContract('adapters/ws', () => spyTransport(openWs));
