// The shared IR -> LLVM IR code generator. One visitor emits every node; what differs between
// targets (how a task's entry receives its parameters, special registers, math library names,
// the address space of arrays) is a handful of virtual hooks that CodegenPTX overrides, as
// Halide's CodeGen_PTX_Dev does for CodeGen_LLVM. The base class itself generates CPU code.
#pragma once

#include "codegen/IndexRange.h"
#include "ir/IR.h"
#include "ir/Mutator.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace loom::codegen {

// Throws the CompileError of an invariant of code generation that does not hold.
[[noreturn]] void internal_error(const std::string &what);

class CodegenLLVM : public ir::Visitor {
public:
  explicit CodegenLLVM(llvm::LLVMContext &context);
  virtual ~CodegenLLVM() = default;

  // A new, verified module for `triple` holding one entry function per task, named as the task.
  // The data layout comes first so that every load, store and alloca gets the target's alignment.
  std::unique_ptr<llvm::Module> compile(const ir::LoweredKernel &kernel, const std::string &triple,
                                        const llvm::DataLayout &layout);

protected:
  // What a task's entry hook hands back: the function whose body the visitor fills, whose first
  // arguments are the flattened parameters (support/Abi.h), and the values bound to the task's
  // chunk variables (null where the target has none).
  struct TaskFunction {
    llvm::Function *body = nullptr;
    llvm::Value *chunk_begin = nullptr;
    llvm::Value *chunk_end = nullptr;
    llvm::Value *chunk_index = nullptr; // CPU: which chunk of the task this call runs
  };

  // ---- target hooks ---------------------------------------------------------------------------

  // Creates the function(s) for one task. `flat_types` are the flattened parameter types; the
  // base class (CPU) makes an internal always-inline body taking them as arguments plus the
  // chunk bounds, and an entry `void name(ptr params, i64 begin, i64 end)` that loads each value
  // through params[k] and calls the body (inlining turns the body's noalias arguments into alias
  // metadata, which a pointer loaded from memory could not carry).
  virtual TaskFunction define_task(const ir::Task &task,
                                   const std::vector<llvm::Type *> &flat_types);
  // Address space of array data pointers.
  virtual unsigned array_address_space() const { return 0; }
  // What every array argument's address is known to be a multiple of (at least its element size).
  virtual int array_alignment() const { return 1; }
  // Name of the library function computing `fn` (a MathImpl::Library one) for type `t`.
  virtual std::string math_function_name(ir::MathFn fn, ir::ScalarType t) const;
  // A call of the library function computing `fn` on `args` of type `t`. The CPU's calls the C
  // library (lgamma as lgamma_r, which writes no global); CodegenPTX's calls libdevice.
  virtual llvm::Value *library_function(ir::MathFn fn, ir::ScalarType t,
                                        const std::vector<llvm::Value *> &args);
  // ldexp(x, exponent): llvm.ldexp on the CPU, libdevice's on the GPU.
  virtual llvm::Value *scale_by_power_of_two(llvm::Value *x, llvm::Value *exponent,
                                             ir::ScalarType t);
  // rsqrt(x): 1 / sqrt(x) on the CPU, libdevice's rsqrt on the GPU.
  virtual llvm::Value *reciprocal_square_root(llvm::Value *x, ir::ScalarType t);
  virtual llvm::Value *special_reg(const ir::SpecialReg *op);
  // After the body of a task with reductions (ir::TaskReduction): hands each worker's partials
  // (the accumulators' final values, in task.reductions order) on towards the array elements.
  // CPU: stores them in the chunk's scratch slots for the runtime to combine; CodegenPTX combines
  // them on the GPU.
  virtual void combine_partials(const ir::Task &task, const std::vector<llvm::Value *> &partials,
                                llvm::Value *scratch, const TaskFunction &tf);
  // Loop metadata (llvm.loop) for a sequential loop's back edge, or null for LLVM's defaults. The
  // CPU's: the loop's schedule (Kernel::unroll, Kernel::vectorize) where it has one.
  virtual llvm::MDNode *loop_hint(const ir::For &loop);
  // Whether `loop`'s array accesses that step through memory by a fixed stride
  // (StridedPointers.cpp) advance pointers of their own instead of computing each address from the
  // indices.
  virtual bool strides_pointers(const ir::For &loop) {
    (void)loop;
    return false;
  }
  // How bf16 elements are loaded and stored. The CPU's are i16: as LLVM's bfloat, a select
  // between two of them (InstCombine makes one of a rounded select) is widened by x86's backend
  // on hosts without AVX512-BF16 into a call of compiler-rt's __truncsfbf2, which the JIT cannot
  // resolve in a process built by GCC 12. CodegenPTX keeps bfloat (the GPU converts natively).
  virtual llvm::Type *bf16_memory_type() const;
  // An f32 rounded to the nearest f16 (bf16), as an f32 again: a RoundF16 (RoundBF16).
  virtual llvm::Value *round_to_16_bits(llvm::Value *f, bool bf16);
  // An f32 rounded to the nearest TF32 value, ties away from zero, as an f32: a RoundTF32.
  virtual llvm::Value *round_to_tf32(llvm::Value *v);
  // An f64 rounded to f32 to odd (support/Float16.h's f32_round_to_odd), for one later rounding.
  llvm::Value *round_to_odd_f32(llvm::Value *d);
  // An f32 rounded to nearest even into bf16 (subnormals kept), of bf16_memory_type(); CodegenPTX
  // uses cvt.rn.bf16.f32.
  virtual llvm::Value *round_to_bf16(llvm::Value *v);
  // A bf16 (of bf16_memory_type()) widened to f32, exactly. The CPU's is the bits shifted into the
  // high half: from an fpext, InstCombine folds a comparison into one of bf16 values, which x86
  // (LLVM 19, Sapphire Rapids) evaluated with bf16 subnormals taken as zero. CodegenPTX keeps the
  // fpext.
  virtual llvm::Value *widen_bf16(llvm::Value *v);
  // Float `a % b`, which is C's fmod.
  virtual llvm::Value *float_remainder(llvm::Value *a, llvm::Value *b, ir::ScalarType t);
  // sqrt (llvm.sqrt: correctly rounded).
  virtual llvm::Value *square_root(llvm::Value *v, ir::ScalarType t);

  // ---- SIMT kernels (CodegenLLVMSimt.cpp) -------------------------------------------------------

  // At the top of a SIMT task's body. CPU: fetches the thread's SimtThread (support/Abi.h).
  virtual void begin_simt_task();
  // Element 0 of a shared array. CPU: in the block's buffer; CodegenPTX: a __shared__ global.
  virtual llvm::Value *shared_base(const ir::Shared &array, int index);
  // The launch's dynamic shared memory in bytes, an i64 (CPU: SimtThread's; CodegenPTX: the
  // %dynamic_smem_size register).
  virtual llvm::Value *dynamic_shared_bytes();
  // __syncthreads.
  virtual void emit_barrier();
  // At the top of a task whose launch may overlap the one before (ir::Task::waits_for_grid).
  // CPU: nothing (its launches never overlap); CodegenPTX: griddepcontrol.wait, then
  // griddepcontrol.launch_dependents.
  virtual void wait_for_previous_grid() {}
  // print(...): `format` a constant string, `slots` an alloca of 8-byte arguments
  // (ir/PrintFormat.h). CPU: calls the runtime's loom_print; CodegenPTX: vprintf.
  virtual void emit_print(llvm::Value *format, llvm::Value *slots);
  // A warp's tensor-core product (ir::Mma). CPU: each lane's statements (ir::mma_by_lane);
  // CodegenPTX: ldmatrix and mma.sync.
  virtual void emit_mma(const ir::Mma *op);
  // ir::AsyncCopy and ir::AsyncWait. CPU: the elements copied at once, and nothing to wait for;
  // CodegenPTX: cp.async.cg.shared.global of 16 bytes, cp.async.wait_all.
  virtual void emit_async_copy(const ir::AsyncCopy *op);
  virtual void emit_async_wait(const ir::AsyncWait &) {}
  // A warpgroup's chunk of products (ir::WarpgroupMma). CPU: a CompileError (only the GPU's
  // tensor-core tile for sm_90 makes one); CodegenPTX: wgmma.mma_async.
  virtual void emit_warpgroup_mma(const ir::WarpgroupMma *op);
  // A memory barrier's operation (ir::Mbarrier). CPU: a CompileError (GPU code only).
  virtual void emit_mbarrier(const ir::Mbarrier *op);
  // A warp collective on `value` (of IR type `t`); `operand` is null for votes.
  virtual llvm::Value *warp_op(ir::WarpOpKind op, ir::ScalarType t, llvm::Value *value,
                               llvm::Value *operand);

  // ---- helpers for the hooks ------------------------------------------------------------------

  // The schedule of `loop` (ir::LoweredKernel::loops, by its variable's name), or null.
  const ir::LoopSchedule *loop_schedule(const ir::For &loop) const;
  // A distinct llvm.loop node of `properties`, as a loop's back edge carries it; null when empty.
  llvm::MDNode *loop_metadata(const std::vector<llvm::Metadata *> &properties);
  // One property of it: !{!"name", i32 value}, or !{!"name"} without a value.
  llvm::MDNode *loop_property(const char *name, std::optional<int> value = std::nullopt);
  // llvm.loop.unroll.count `times`, or llvm.loop.unroll.disable for 1.
  llvm::MDNode *unroll_property(int times);

  llvm::Type *llvm_type(ir::ScalarType t) const;   // in registers: bool is i1
  llvm::Type *memory_type(ir::ScalarType t) const; // in memory and the param ABI: bool is i8
  llvm::Value *from_memory(llvm::Value *v, ir::ScalarType t); // i8 -> i1 for bools, f16 -> f32
  llvm::Value *to_memory(llvm::Value *v, ir::ScalarType t);   // the reverse
  // The address of array[indices] (row-major), with the indices generated at the insert point.
  // A bounds-checked kernel's access checks every index first (checked_address).
  llvm::Value *element_address(int array, const std::vector<ir::Expr> &indices);
  // The i64 values of `indices`. With `split`, a constant the last one adds (x + c) is left out
  // of it and returned in *constant, to become an address step of its own: elements at x + 0,
  // x + 1, ... then share one address computation, which the vectorizers need to merge their
  // loads. `whole` gives an index list such a split left without its constant back whole (for
  // the bounds checks).
  std::vector<llvm::Value *> index_values(const std::vector<ir::Expr> &indices, bool split,
                                          int64_t *constant);
  std::vector<llvm::Value *> whole(std::vector<llvm::Value *> index, int64_t constant);
  // a op b for a non-comparison operator, with loom's semantics (also a reduction's operation,
  // through ir::binary_op_of).
  llvm::Value *arith(ir::BinaryOp op, ir::ScalarType t, llvm::Value *a, llvm::Value *b);
  virtual llvm::Value *float_min_max(ir::BinaryOp op, llvm::Value *a, llvm::Value *b);
  // A call of the pure math library function `name` returning `type`, taking `args` as they are.
  llvm::Value *call_math_library(const std::string &name, llvm::Type *type,
                                 const std::vector<llvm::Value *> &args);

  llvm::LLVMContext &context;
  std::unique_ptr<llvm::Module> module;
  llvm::IRBuilder<> builder;
  const ir::LoweredKernel *kernel = nullptr;
  bool index32 = false; // GpuTarget::index32: 32-bit array offsets and bounded loop counters

  // A variable's slot.
  llvm::AllocaInst *lookup(const ir::Var &var) const;
  // The address of shared[indices] (row-major, static extents).
  llvm::Value *shared_address(const ir::Shared &array, const std::vector<ir::Expr> &indices);
  // An expression's value, for the hooks.
  llvm::Value *value_of(const ir::Expr &e) { return codegen(e); }

private:
  void compile_task(const ir::Task &task);
  // The variable's slot, of its own type unless `type` is given (a 32-bit loop counter).
  llvm::AllocaInst *create_alloca(const ir::Var &var, llvm::Type *type = nullptr);
  llvm::Value *array_extent(int array, int dim) const;
  // A strided array's stride of dimension `dim`, in elements (an i64 parameter after its extents).
  llvm::Value *array_stride(int array, int dim) const;
  // The alignment an access of array[indices] may claim (an element's own, or more).
  llvm::Align access_alignment(int array, const std::vector<ir::Expr> &indices) const;
  llvm::Align shared_alignment(const ir::Shared &array, const std::vector<ir::Expr> &indices) const;
  // The alignment of a shared or local array's first element (local arrays: their alloca's).
  virtual int64_t shared_base_alignment(const ir::Shared &array) const;
  // What `make` builds, built at the start of the task (after the CPU's SimtThread is fetched),
  // so that it dominates every use.
  llvm::Value *at_task_start(const std::function<llvm::Value *()> &make);
  // The extent of dynamic shared array `array` (an i64), at the insert point.
  llvm::Value *dynamic_shared_extent(const ir::Shared &array);
  // An atomic update at `address` of element type `t`; returns the old value.
  llvm::Value *atomic_update(ir::AtomicOp op, ir::ScalarType t, llvm::Value *address,
                             llvm::Value *value, llvm::Value *compare);
  // `address` when every index is below its extent; else the bounds record's sink, after
  // claiming the record for this violation if no other did (support/Abi.h).
  // `array` identifies the array in the record: a parameter's index, or for shared array k the
  // number of parameters plus k.
  // Slot `slot` of the task's record (support/Abi.h).
  llvm::Value *record_slot(int slot);
  llvm::Value *checked_address(int array, const std::vector<llvm::Value *> &index,
                               const std::vector<llvm::Value *> &extents, llvm::Value *address);

  // Expressions leave their value in value_; codegen() is the way to read it.
  llvm::Value *codegen(const ir::Expr &e);
  void codegen(const ir::Stmt &s);
#define LOOM_X(name) void visit_node(const ir::name *op) override;
  LOOM_EXPR_NODES(LOOM_X)
  LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X

  llvm::Value *int_div_mod(ir::BinaryOp op, ir::ScalarType t, llvm::Value *a, llvm::Value *b);
  llvm::Value *fma(llvm::Type *type, const std::vector<llvm::Value *> &args);
  llvm::Value *compare(ir::BinaryOp op, ir::ScalarType t, llvm::Value *a, llvm::Value *b);
  llvm::Value *cast(ir::ScalarType to, ir::ScalarType from, llvm::Value *v);

  // ---- pointers of strided accesses (StridedPointers.cpp) ---------------------------------------

  // Before `loop`'s first iteration: a pointer for each access that steps by a fixed stride, when
  // the target asks for them and no bounds are checked. After the body: each advances by its
  // stride. After the loop: forgotten.
  void begin_strided_pointers(const ir::For &loop);
  void advance_strided_pointers();
  void end_strided_pointers();
  // The current address of a Load or Store node given a pointer, else null.
  llvm::Value *strided_address(const void *access);
  struct StridedPointer {
    llvm::AllocaInst *slot; // the pointer
    llvm::Value *stride;    // in elements
    llvm::Type *element;
  };
  std::vector<StridedPointer> strided_;
  std::unordered_map<const void *, size_t> strided_access_; // Load/Store node -> its pointer

  // Per task: the first flattened argument of each kernel parameter, and each variable's slot.
  std::vector<unsigned> first_flat_arg_;
  llvm::Function *function_ = nullptr;
  llvm::IRBuilder<> alloca_builder_;
  std::unordered_map<const ir::Variable *, llvm::AllocaInst *> slots_;
  llvm::Value *value_ = nullptr;
  llvm::Value *bounds_record_ = nullptr;    // the task's record, when the kernel checks bounds
  llvm::Value *record_ = nullptr;           // the task's record, when it has one (support/Abi.h)
  llvm::Value *simt_thread_ = nullptr;      // CPU SIMT tasks: the thread's SimtThread
  std::vector<llvm::Value *> shared_bases_; // per shared array, once asked for
  std::vector<llvm::Value *> local_bases_;  // per local array: its alloca, once asked for
  llvm::Value *dynamic_bytes_ = nullptr;    // dynamic_shared_bytes(), once asked for
  IndexRanges counters32_; // the 32-bit loop counters in scope (index32), and their ranges
  // LLVM 19's InstSimplify crashes on minnum(minnum(x, y), fma(x, y, z)) (it takes any intrinsic
  // there for a min/max; llvm-project PR #173705). CPU kernels with a float min or max therefore
  // call llvm.fma through a small function that is never inlined (the GPU's are inline PTX).
  bool fma_through_helper_ = false;
};

} // namespace loom::codegen
