/*
 * The "elt_setup" check after Initialize, and at shutdown the hooks'
 * counts against the FunctionIDMapper's answers.
 */
#ifndef SHIM_HARNESS_ELT_CHECKS_H
#define SHIM_HARNESS_ELT_CHECKS_H

#include "harness/harness.h"

void shim_check_elt_setup(const shim_elt *e, shim_report *r);
void shim_check_elt(shim_elt *e, shim_report *r);

#endif
