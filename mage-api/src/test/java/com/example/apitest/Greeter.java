package com.example.apitest;

import org.magejvm.api.plugin.Provider;

/** The service type of the registry tests: two providers declared in META-INF/services. */
public interface Greeter extends Provider {}
