package com.example.apitest;

import org.magejvm.api.plugin.Provider;

/** A service type whose services file names a class that does not exist. */
public interface BrokenGreeter extends Provider {}
