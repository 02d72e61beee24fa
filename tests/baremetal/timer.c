void test_main(void) {}
