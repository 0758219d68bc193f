// The Khronos glTF validator (npm gltf-validator) ships no type declarations; what the tests use.
declare module 'gltf-validator' {
  interface ValidationReport {
    issues: {
      numErrors: number
      numWarnings: number
      messages: { code: string; message: string; severity: number; pointer?: string }[]
    }
  }
  export function validateBytes(
    data: Uint8Array,
    options?: Record<string, unknown>,
  ): Promise<ValidationReport>
  const validator: { validateBytes: typeof validateBytes }
  export default validator
}
