import { openWs } from '../../adapters/ws';
import { describeStreamContract } from './contract-cases';

// Node 20: the `ws` package, with the key in `Authorization: Bearer`.
describeStreamContract('adapters/ws', openWs);
