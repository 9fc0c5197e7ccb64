// RUN: tosa-custom-opt --list-passes | FileCheck %s

// CHECK:      --convert-torch-backend-legal-to-tosa-custom
// CHECK-NEXT: Convert selected torch ops at the backend contract to tosa.custom (options: ops=a,b encoding=json|const strict=true|false)
