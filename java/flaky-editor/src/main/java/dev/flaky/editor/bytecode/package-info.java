/**
 * The editor's bytecode side (ODRepair's reset-method finder): reads the module's compiled classes with
 * ASM to find the methods that reset a polluted static field and the literals to call them with.
 */
package dev.flaky.editor.bytecode;
