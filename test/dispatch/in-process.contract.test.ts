import { InProcessDispatcher } from '../../workers/dispatch/in-process.ts'
import { dispatcherContract } from './contract.ts'

dispatcherContract('in-process', async (settings) => new InProcessDispatcher(settings))
