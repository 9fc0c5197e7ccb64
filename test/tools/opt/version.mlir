// --version prints the package's version and exits 0 (it used to say
// "'version' does not refer to a registered pass").

// RUN: tosa-custom-opt --version | FileCheck %s
// CHECK: tosa-custom-opt (tosa-custom {{[0-9]+\.[0-9]+}}
