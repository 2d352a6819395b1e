/* Every public C header in one translation unit (test/headers/). */
#include "ilmap.h"
#include "ilmap-il.h"
#include "ilmap-algebra.h"
#include "ilmap-serial.h"
#include "ilmap-versions.h"
#include "ilmap-sig.h"
#include "ilmap-pdb.h"
