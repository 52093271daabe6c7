// The embedded DSL in one include.
#pragma once

#include "frontend/Array.h"
#include "frontend/Assert.h"
#include "frontend/Complex.h"
#include "frontend/Control.h"
#include "frontend/LocalArray.h"
#include "frontend/Mma.h"
#include "frontend/Philox.h"
#include "frontend/Print.h"
#include "frontend/Simt.h"
#include "frontend/Trace.h"
#include "frontend/Value.h"
#include "frontend/Var.h"
