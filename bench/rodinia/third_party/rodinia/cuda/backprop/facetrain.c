

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <sys/time.h> /* loom bench: gettimeofday */
#include "backprop.h"
#include "omp.h"

extern char *strcpy();
extern void exit();

int layer_size = 0;

backprop_face()
{
  BPNN *net;
  int i;
  float out_err, hid_err;
  net = bpnn_create(layer_size, 16, 1); // (16, 1 can not be changed)
  
  printf("Input layer size : %d\n", layer_size);
  load(net);
  //entering the training kernel, only one iteration
  printf("Starting training kernel\n");
  struct timeval loom_bench_start, loom_bench_end; /* loom bench: the training step's time */
  gettimeofday(&loom_bench_start, NULL);
  bpnn_train_cuda(net, &out_err, &hid_err);
  gettimeofday(&loom_bench_end, NULL);
  printf("RODINIA_KERNEL_MS %.6f\n", (loom_bench_end.tv_sec - loom_bench_start.tv_sec) * 1e3 +
         (loom_bench_end.tv_usec - loom_bench_start.tv_usec) / 1e3);
  { /* loom bench: the weights after the step, every bit, for the driver */
    FILE *loom_bench_out = fopen("output.bin", "wb");
    for (i = 0; i <= net->input_n; i++)
      fwrite(net->input_weights[i], sizeof(float), net->hidden_n + 1, loom_bench_out);
    for (i = 0; i <= net->hidden_n; i++)
      fwrite(net->hidden_weights[i], sizeof(float), net->output_n + 1, loom_bench_out);
    fclose(loom_bench_out);
  }
  bpnn_free(net);
  printf("Training done\n");
}

int setup(argc, argv)
int argc;
char *argv[];
{
	
  int seed;

  if (argc!=2){
  fprintf(stderr, "usage: backprop <num of input elements>\n");
  exit(0);
  }
  layer_size = atoi(argv[1]);
  if (layer_size%16!=0){
  fprintf(stderr, "The number of input points must be divided by 16\n");
  exit(0);
  }
  

  seed = 7;   
  bpnn_initialize(seed);
  backprop_face();

  exit(0);
}
