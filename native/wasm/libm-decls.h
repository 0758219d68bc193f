/* C math declarations for compiling meshoptimizer (vendored by the meshopt crate) to
 * wasm32-wasip1-threads. The crate's own wasm32 headers map only sqrtf and fabsf to builtins;
 * newer meshoptimizer sources call more of libm. These declarations let them compile; the
 * definitions come from the WASI libc that Rust links for this target. Force-included with
 * `-include` by native/build-wasm.ts. */
#ifdef __cplusplus
extern "C" {
#endif
float floorf(float);
float ceilf(float);
float roundf(float);
float truncf(float);
float log2f(float);
float logf(float);
float expf(float);
float exp2f(float);
float powf(float, float);
float frexpf(float, int *);
float ldexpf(float, int);
float fmodf(float, float);
float sinf(float);
float cosf(float);
float tanf(float);
float asinf(float);
float acosf(float);
float atanf(float);
float atan2f(float, float);
double floor(double);
double ceil(double);
double sqrt(double);
double fabs(double);
double log2(double);
double log(double);
double exp(double);
double pow(double, double);
double frexp(double, int *);
double ldexp(double, int);
#ifdef __cplusplus
}
#endif
