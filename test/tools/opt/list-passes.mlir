// RUN: tosa-custom-opt --list-passes | FileCheck %s

// Every IR step of compile(), of the weights tools and of the runtime lowering is a pass with a flag,
// listed in order with its one-line description and options.
// CHECK:      --convert-torch-backend-legal-to-tosa-custom
// CHECK-NEXT: Convert selected torch ops at the backend contract to tosa.custom (options: ops=a,b encoding=json|const strict=true|false tosa-target=auto|none|'profiles=...' quantized=a,b)
// CHECK:      --tosa-custom-auto-at-import
// CHECK:      --tosa-custom-bind-weights
// CHECK-NEXT: (options: weights=FILE entry=NAME)
// CHECK:      --tosa-custom-check-sign-semantics
// CHECK:      --tosa-custom-distinct-results
// CHECK:      --tosa-custom-expand-math
// CHECK:      --tosa-custom-find-custom-calls
// CHECK:      --tosa-custom-fuse-multiply-add
// CHECK:      --tosa-custom-generalize
// CHECK:      --tosa-custom-integer-negate-as-sub
// CHECK:      --tosa-custom-lift-weights
// CHECK-NEXT: (options: threshold=1024 entry=NAME weights=FILE.safetensors manifest=FILE.json)
// CHECK:      --tosa-custom-lower-vectors
// CHECK:      --tosa-custom-make-columns-contiguous
// CHECK:      --tosa-custom-mark-boundary-dtypes
// CHECK:      --tosa-custom-outline-custom-ops
// CHECK:      --tosa-custom-outline-tosa-fallbacks
// CHECK:      --tosa-custom-pack-columns
// CHECK:      --tosa-custom-tensor-constants-as-tosa
// CHECK:      --tosa-custom-tensorize-builtin-scalar-boundary
// CHECK:      --tosa-custom-tensorize-scalar-boundary
// CHECK:      --tosa-custom-tile-and-vectorize
// CHECK:      --tosa-custom-to-buffer-per-call
// CHECK:      --tosa-custom-verify-tosa
// CHECK:      --tosa-custom-write-results-in-place
