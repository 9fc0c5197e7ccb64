// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-vulkan-shaders | FileCheck %s

// A kept layer_norm becomes a shader op of the ML SDK's domain: the contract's
// args and version stay, the former domain beside them, and the shader's keys
// (entry point, dispatch, GLSL after the op's prelude, a storage buffer per
// operand and result). The shader reads and writes flat reshapes of the
// values, so no model input or output meets a shader directly.
// CHECK-LABEL: func.func @layer_norm$basic(
// CHECK:         %[[FLAT:.*]] = tosa.reshape %arg0, %{{.*}} : (tensor<2x8x32xf32>, !tosa.shape<1>) -> tensor<512xf32>
// CHECK:         %[[W:.*]] = tosa.reshape %arg1, %{{.*}} : (tensor<32xf32>, !tosa.shape<2>) -> tensor<1x32xf32>
// CHECK:         %[[Y:.*]] = tosa.custom %[[FLAT]], %[[W]], %{{.*}} {domain_name = "com.arm.VulkanCustomShader"
// CHECK-SAME:      \22args\22:{\22bias\22:{\22operand\22:2}
// CHECK-SAME:      \22domain\22:\22torch_mlir\22
// CHECK-SAME:      \22entry_point\22:\22main\22
// CHECK-SAME:      \22input_1_binding\22:1
// CHECK-SAME:      \22input_2_vkdescriptortype\22:\22VK_DESCRIPTOR_TYPE_STORAGE_BUFFER\22
// CHECK-SAME:      \22output_0_binding\22:3
// CHECK-SAME:      \22output_0_vkformat\22:\22VK_FORMAT_R32_SFLOAT\22
// CHECK-SAME:      #version 450\\n#define TC_INPUTS 3
// CHECK-SAME:      #define TC_ARG_eps 1e-05
// CHECK-SAME:      \22shader_language\22:\22GLSL\22
// CHECK-SAME:      \22version\22:1,\22workgroup_sizes\22:[16,1,1]}", operator_name = "torch.aten.layer_norm"}
// CHECK-SAME:      -> tensor<512xf32>
// CHECK:         %[[OUT:.*]] = tosa.reshape %[[Y]], %{{.*}} : (tensor<512xf32>, !tosa.shape<3>) -> tensor<2x8x32xf32>
// CHECK:         return %[[OUT]]
func.func @layer_norm$basic(%x: tensor<2x8x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %0 = tosa.custom %x, %w, %b {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22bias\22:{\22operand\22:2},\22cudnn_enable\22:false,\22eps\22:1e-05,\22input\22:{\22operand\22:0},\22normalized_shape\22:[32],\22weight\22:{\22operand\22:1}},\22version\22:1}", operator_name = "torch.aten.layer_norm"} : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// Equal constants on one op (weight and bias both zeros, one a splat, one
// not): the ML SDK merges them and binds the value once, so the pass keeps
// one operand and gives both arguments its binding ("operands" maps them).
// CHECK-LABEL: func.func @layer_norm$equal_constants(
// CHECK:         tosa.custom %{{.*}}, %{{.*}} {domain_name = "com.arm.VulkanCustomShader"
// CHECK-SAME:      \22operands\22:[0,1,1]
// CHECK-SAME:      \22output_0_binding\22:2
// CHECK-SAME:      #define TC_INPUT1_BINDING 1\\n
// CHECK-SAME:      #define TC_INPUT2_BINDING 1\\n
// CHECK-SAME:      : (tensor<12xf32>, tensor<1x4xf32>) -> tensor<12xf32>
func.func @layer_norm$equal_constants(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %w = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b = "tosa.const"() <{values = dense<[0.0, 0.0, 0.0, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = tosa.custom %x, %w, %b {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22bias\22:{\22operand\22:2},\22cudnn_enable\22:false,\22eps\22:1e-05,\22input\22:{\22operand\22:0},\22normalized_shape\22:[4],\22weight\22:{\22operand\22:1}},\22version\22:1}", operator_name = "torch.aten.layer_norm"} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A kept op without a shader is refused, naming it and the executors that run it.
func.func @relu$no_shader(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{torch.aten.relu cannot run on Vulkan: no Vulkan shader is registered for torch.aten.relu (domain torch_mlir); register one with tosa_custom.vgf.register_shader, or run the program where kept ops run on kernels: tosa_custom.runtime.load, tosa_custom.refmodel.load or tosa_custom.iree.load (native or Python kernels)}}
  %0 = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.relu"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A half op: 16-bit storage buffers of the half format, float arithmetic.
// CHECK-LABEL: func.func @gelu$f16(
// CHECK:         tosa.custom %{{.*}} {domain_name = "com.arm.VulkanCustomShader"
// CHECK-SAME:      \22input_0_vkformat\22:\22VK_FORMAT_R16_SFLOAT\22
// CHECK-SAME:      \22output_0_vkformat\22:\22VK_FORMAT_R16_SFLOAT\22
// CHECK-SAME:      #extension GL_EXT_shader_16bit_storage : require
// CHECK-SAME:      #define X_T float16_t\\n#define Y_T float16_t
func.func @gelu$f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22approximate\22:\22none\22,\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.gelu"} : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// A built-in shader says what it does not take.
func.func @gelu$bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @below {{torch.aten.gelu cannot run on Vulkan: operand #0 is bf16; the shader takes f32/f16}}
  %0 = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22approximate\22:\22none\22,\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.gelu"} : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
