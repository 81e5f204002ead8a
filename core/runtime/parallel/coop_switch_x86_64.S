/* rl__coop_switch(void **save_sp, void *load_sp), x86-64 System V: a
   coroutine switch without a system call (swapcontext saves and restores
   the signal mask, one rt_sigprocmask each way; the replicas never change
   it).  Saves the callee-saved registers and the SSE and x87 control words
   on the current stack, stores the stack pointer in *save_sp, and resumes
   the stack at load_sp, which a previous switch saved or coop.c built. */
        .text
        .globl  rl__coop_switch
        .hidden rl__coop_switch
        .type   rl__coop_switch, @function
rl__coop_switch:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   rl__coop_switch, .-rl__coop_switch
        .section .note.GNU-stack, "", @progbits
