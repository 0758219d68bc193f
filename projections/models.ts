// Every read model, by name.
import { accountsProjector } from './accounts/projector.ts'
import { jobsProjector } from './jobs/projector.ts'
import { keysProjector } from './keys/projector.ts'
import { passkeysProjector } from './passkeys/projector.ts'
import type { Projector } from './projector.ts'
import { storageProjector } from './storage/projector.ts'

export const projectors: readonly Projector[] = [
  jobsProjector,
  accountsProjector,
  keysProjector,
  passkeysProjector,
  storageProjector,
]

export function projectorNamed(model: string): Projector {
  const projector = projectors.find((p) => p.model === model)
  if (!projector)
    throw new Error(
      `Unknown read model ${model}; the models are ${projectors.map((p) => p.model).join(', ')}`,
    )
  return projector
}
