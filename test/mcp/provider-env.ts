// Generation tools are listed only while a provider is configured. Listing tests configure one
// (pointing at a closed local port: nothing is ever called) and restore the environment after.
const providerEnv = {
  OPENAI_API_KEY: 'sk-test-listing-only',
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  FAL_KEY: 'fal-test-listing-only',
  FAL_BASE_URL: 'http://127.0.0.1:9',
  FAL_TEXT_TO_3D_MODEL: 'fal-ai/text-to-3d',
  FAL_IMAGE_TO_3D_MODEL: 'fal-ai/image-to-3d',
}

export function configureProviders(): () => void {
  const saved = Object.fromEntries(Object.keys(providerEnv).map((name) => [name, process.env[name]]))
  Object.assign(process.env, providerEnv)
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}
